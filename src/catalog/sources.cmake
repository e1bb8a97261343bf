# Sources of src/catalog (paths relative to src/).
list(APPEND GPUPLAN_LIB_SOURCES
  catalog/toml_fields.cpp
  catalog/load.cpp
  catalog/validate.cpp
  catalog/gpu_parse.cpp
  catalog/gpu_derived.cpp
  catalog/topology_parse.cpp
  catalog/system_derived.cpp
  catalog/cloud_parse.cpp
  catalog/hf_hub_cache.cpp
  catalog/model_parse.cpp
  catalog/collective_params_parse.cpp
  catalog/efficiency_parse.cpp
  catalog/framework_parse.cpp
  catalog/tco_parse.cpp
  catalog/engine_parse.cpp
  catalog/system_choice.cpp
  catalog/resolve_model.cpp
  catalog/source_date_parse.cpp
  catalog/cloud_price.cpp
  catalog/lookup_request.cpp
  catalog/lookup_fields.cpp
  catalog/nvidia_smi_topo.cpp
  catalog/xml_elements.cpp
  catalog/nccl_topo_xml.cpp
  catalog/topology_import.cpp
)
