# The issue's done-when line: after the build, the README's Python one-liner prints the same
# step time as `gpuplan train --json`. Run by ctest (python.readme_line_matches_cli) with
# PYTHON (the interpreter the module was built for), GPUPLAN (the CLI) and PYTHONPATH.
set(ENV{PYTHONPATH} "${PYTHONPATH}")
execute_process(
  COMMAND "${PYTHON}" -c "import gpuplan; print(gpuplan.train(model='llama3.1-70b', gpu='h100-sxm', gpus=64, tp=8, pp=2, sp=True, zero=1).step_time_s)"
  OUTPUT_VARIABLE py_out ERROR_VARIABLE py_err RESULT_VARIABLE py_rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT py_rc EQUAL 0)
  message(FATAL_ERROR "python one-liner failed (${py_rc}): ${py_err}")
endif()
execute_process(
  COMMAND "${GPUPLAN}" train --model llama3.1-70b --gpu h100-sxm --gpus 64 --tp 8 --pp 2 --sp --zero 1 --json
  OUTPUT_VARIABLE cli_out RESULT_VARIABLE cli_rc)
if(NOT cli_rc EQUAL 0)
  message(FATAL_ERROR "gpuplan train failed (${cli_rc})")
endif()
# The number as the CLI wrote it (nlohmann's shortest round-trip digits, the same as Python's
# repr of the same double); string(JSON) would re-print it with 17 digits.
string(REGEX MATCH "\n  \"step_time_s\": ([^,\n]+)," _match "${cli_out}")
set(cli_step "${CMAKE_MATCH_1}")
if(NOT py_out STREQUAL cli_step)
  message(FATAL_ERROR "python printed '${py_out}', gpuplan train --json has step_time_s ${cli_step}")
endif()
# And the plan it prints fits (issue 34: the line used to print the step time of a plan that
# needs 101 GiB per GPU).
if(NOT cli_out MATCHES "\n  \"fits\": true,")
  message(FATAL_ERROR "the README's Python plan does not fit: ${cli_out}")
endif()
message(STATUS "python and CLI agree: step_time_s ${py_out}, and the plan fits")
