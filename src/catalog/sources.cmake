# Sources of src/catalog (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES
  catalog/toml_fields.cpp
  catalog/load.cpp
  catalog/validate.cpp
  catalog/gpu_parse.cpp
  catalog/gpu_derived.cpp
  catalog/topology_parse.cpp
  catalog/cloud_parse.cpp
  catalog/model_parse.cpp
)
