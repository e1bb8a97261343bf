# Sources of src/econ (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES
  econ/run_cost.cpp
  econ/tco.cpp
  econ/energy.cpp
)
