list(APPEND GPUPLAN_TEST_SOURCES econ/econ_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES econ/tco_inputs_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES econ/econ_request_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES econ/cost_over_time_test.cpp)
