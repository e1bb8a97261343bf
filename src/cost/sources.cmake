# Sources of src/cost (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES cost/roofline.cpp)
list(APPEND GPUPLAN_LIB_SOURCES cost/memory.cpp cost/framework_memory.cpp cost/eager_kernels.cpp cost/checkpoint_recompute.cpp)
list(APPEND GPUPLAN_LIB_SOURCES cost/collective_topology.cpp cost/collective_hierarchical.cpp
     cost/collective_protocols.cpp cost/collective_request.cpp)
list(APPEND GPUPLAN_LIB_SOURCES cost/rooflines.cpp cost/rooflines_request.cpp cost/rooflines_fields.cpp)
list(APPEND GPUPLAN_LIB_SOURCES cost/gemm_shape_curve.cpp cost/grouped_gemm.cpp)
