# One test per tests/golden/<command>/*.case file (docs/testing.md); the runner lists them at run time.
list(APPEND GPUPLAN_TEST_SOURCES golden/golden_test.cpp)
