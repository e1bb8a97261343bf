# Sources of src/calibration (paths relative to src/): measured profiles from gpuplan-bench and
# what they change in the cost models. The benchmark's own host code (sweeps, CPU references)
# is the library in cuda/bench_support/.
list(APPEND GPUPLAN_LIB_SOURCES calibration/profile.cpp calibration/calibrate.cpp calibration/layer_shape.cpp
     calibration/step_shape.cpp calibration/step_layout.cpp calibration/bench_layer_cost.cpp)
list(APPEND GPUPLAN_LIB_SOURCES calibration/calibration_scale.cpp calibration/collective_calibration.cpp
     calibration/collective_question.cpp calibration/collective_why.cpp calibration/collective_fields.cpp)
list(APPEND GPUPLAN_LIB_SOURCES calibration/gpu_request.cpp calibration/gpu_fields.cpp calibration/nccl_tests_log.cpp
     calibration/collective_fit.cpp calibration/training_calibration_file.cpp)
