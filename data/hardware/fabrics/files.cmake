list(APPEND GPUPLAN_DATA_FILES
  hardware/fabrics/dgx-superpod-b200.toml
  hardware/fabrics/dgx-superpod-b300.toml
  hardware/fabrics/dgx-superpod-gb200.toml
  hardware/fabrics/dgx-superpod-h100.toml
)
