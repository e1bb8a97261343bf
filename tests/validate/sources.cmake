list(APPEND GPUPLAN_TEST_SOURCES validate/measured_quantity_test.cpp validate/infer_validation_test.cpp validate/infer_attention_dp_column_test.cpp
     validate/infer_slo_mode_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES validate/collective_validation_test.cpp validate/collective_constants_fit_test.cpp)
list(APPEND GPUPLAN_TEST_SOURCES validate/training_calibration_test.cpp)
