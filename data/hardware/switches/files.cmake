list(APPEND GPUPLAN_DATA_FILES
  hardware/switches/nvswitch1.toml
  hardware/switches/nvswitch2.toml
  hardware/switches/nvswitch3.toml
  hardware/switches/nvswitch4.toml
  hardware/switches/q3400.toml
  hardware/switches/qm8700.toml
  hardware/switches/qm9700.toml
  hardware/switches/sn5600.toml
)
