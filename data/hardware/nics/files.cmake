list(APPEND GPUPLAN_DATA_FILES
  hardware/nics/connectx6.toml
  hardware/nics/connectx7.toml
  hardware/nics/connectx8.toml
  hardware/nics/efa-v1.toml
  hardware/nics/efa-v2.toml
  hardware/nics/efa-v2-x4.toml
  hardware/nics/efa-v3.toml
  hardware/nics/efa-v4.toml
  hardware/nics/gcp-tcpx.toml
  hardware/nics/gcp-tcpxo.toml
  hardware/nics/slingshot11.toml
)
