# Sources of src/calibration (paths relative to src/): measured profiles from gpuplan-bench.
list(APPEND GPUPLAN_LIB_SOURCES calibration/profile.cpp calibration/calibrate.cpp calibration/measure.cpp
     calibration/sweep.cpp calibration/layer_shape.cpp calibration/layer_reference.cpp calibration/step_shape.cpp
     calibration/step_layout.cpp calibration/step_reference.cpp calibration/adamw_reference.cpp)
list(APPEND GPUPLAN_LIB_SOURCES calibration/bench_layer_cost.cpp)
