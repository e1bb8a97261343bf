list(APPEND GPUPLAN_DATA_FILES
  econ/tco-inputs.toml
)
