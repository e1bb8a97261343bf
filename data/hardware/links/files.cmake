list(APPEND GPUPLAN_DATA_FILES
  hardware/links/nvlink4.toml
)
