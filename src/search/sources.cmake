# Sources of src/search (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES search/enumerate.cpp search/rank.cpp search/search.cpp search/search_request.cpp
     search/coverage.cpp search/empty_space.cpp search/search_fields.cpp)
list(APPEND GPUPLAN_LIB_SOURCES search/compare_training.cpp)
