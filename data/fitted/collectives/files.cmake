# The collective cost model's constants (data/fitted/collectives/).
list(APPEND GPUPLAN_DATA_FILES
  fitted/collectives/nccl.toml
)
