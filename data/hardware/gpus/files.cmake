list(APPEND GPUPLAN_DATA_FILES
  hardware/gpus/h100-sxm.toml
)
