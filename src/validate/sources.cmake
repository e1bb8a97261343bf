# Sources of src/validate (paths relative to src/): predicted vs measured on published runs and
# on gpuplan-bench profiles.
list(APPEND GPUPLAN_LIB_SOURCES validate/error_stats.cpp validate/collective_validation.cpp
     validate/collective_constants_fit.cpp)
list(APPEND GPUPLAN_LIB_SOURCES validate/train_validation.cpp validate/infer_validation.cpp)
list(APPEND GPUPLAN_LIB_SOURCES validate/infer_fit.cpp)
list(APPEND GPUPLAN_LIB_SOURCES validate/calibration_validation.cpp validate/training_calibration.cpp
     validate/calibrate_request.cpp)
list(APPEND GPUPLAN_LIB_SOURCES validate/validate_request.cpp validate/measured_quantity.cpp)
