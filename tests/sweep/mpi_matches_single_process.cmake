# ctest sweep.mpirun_matches_single_process (cmake -P): the small sweep once in one process
# and once under `mpirun -np 2`; the result files must be equal byte for byte, and the MPI run
# must really have used two ranks (else it would compare the single-process path with itself).
# In: GPUPLAN, MPIEXEC, NUMPROC_FLAG, PREFLAGS (a ;-list), SPEC, WORK_DIR, SANITIZE.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

execute_process(COMMAND "${GPUPLAN}" sweep "${SPEC}" --out-csv "${WORK_DIR}/single.csv"
                        --out-json "${WORK_DIR}/single.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "single-process sweep failed (${rc}):\n${out}\n${err}")
endif()

# Open MPI keeps what MPI_Init allocates until exit, which LeakSanitizer reports as leaks in
# every rank; gpuplan's own code is leak-checked by the in-process tests.
if(SANITIZE)
  set(ENV{ASAN_OPTIONS} "detect_leaks=0")
endif()
execute_process(COMMAND "${MPIEXEC}" ${NUMPROC_FLAG} 2 ${PREFLAGS} "${GPUPLAN}" sweep "${SPEC}"
                        --out-csv "${WORK_DIR}/mpi.csv" --out-json "${WORK_DIR}/mpi.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpirun -np 2 sweep failed (${rc}):\n${out}\n${err}")
endif()
if(NOT out MATCHES "on 2 ranks")
  message(FATAL_ERROR "the mpirun sweep did not run on 2 ranks:\n${out}\n${err}")
endif()
message(STATUS "${out}")

foreach(ext csv json)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK_DIR}/single.${ext}" "${WORK_DIR}/mpi.${ext}"
                  RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "${WORK_DIR}/mpi.${ext} differs from ${WORK_DIR}/single.${ext}")
  endif()
endforeach()
