list(APPEND GPUPLAN_DATA_FILES
  validation/inference-sources.toml
  validation/training-sources.toml
)
