list(APPEND GPUPLAN_DATA_FILES
  validation/training-sources.toml
)
