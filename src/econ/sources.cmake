# Sources of src/econ (paths relative to src/): prices, offers and the economics questions.
list(APPEND GPUPLAN_LIB_SOURCES
  econ/run_cost.cpp
  econ/tco.cpp
  econ/energy.cpp
  econ/figures.cpp
  econ/offers.cpp
  econ/cost_request.cpp
  econ/tco_request.cpp
  econ/cost_over_time.cpp
  econ/cost_ownership.cpp
  econ/energy_request.cpp
  econ/recommend_request.cpp
  econ/serve_recommend_request.cpp
  econ/recommend_question.cpp
  econ/econ_fields.cpp
)
