list(APPEND GPUPLAN_DATA_FILES
  validation/training-runs-readings.toml
)
