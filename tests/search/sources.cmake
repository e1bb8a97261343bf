list(APPEND GPUPLAN_TEST_SOURCES search/planner_answers_test.cpp search/search_test.cpp search/search_cli_test.cpp search/recommend_test.cpp search/recommend_serve_test.cpp
     search/coverage_test.cpp)
