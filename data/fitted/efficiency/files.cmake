list(APPEND GPUPLAN_DATA_FILES
  fitted/efficiency/ampere.toml
  fitted/efficiency/hopper.toml
  fitted/efficiency/blackwell.toml
  fitted/efficiency/cdna4.toml
  fitted/efficiency/generic.toml
)
