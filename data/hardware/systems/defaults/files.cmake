# gpuplan's default servers: one for each catalog GPU that no product system holds (docs/data-format.md).
list(APPEND GPUPLAN_DATA_FILES
  hardware/systems/defaults/dgx-1p.toml
  hardware/systems/defaults/dgx-1v.toml
  hardware/systems/defaults/gh200-node.toml
  hardware/systems/defaults/hgx-a800.toml
  hardware/systems/defaults/hgx-b100.toml
  hardware/systems/defaults/hgx-h20.toml
  hardware/systems/defaults/mi250x-4.toml
  hardware/systems/defaults/mi325x-8.toml
  hardware/systems/defaults/mi350x-8.toml
  hardware/systems/defaults/mi355x-8.toml
  hardware/systems/defaults/pcie-server-a100-pcie-40gb.toml
  hardware/systems/defaults/pcie-server-a100-pcie-80gb.toml
  hardware/systems/defaults/pcie-server-h100-nvl.toml
  hardware/systems/defaults/pcie-server-h100-pcie.toml
  hardware/systems/defaults/pcie-server-h200-nvl.toml
  hardware/systems/defaults/pcie-server-l4.toml
  hardware/systems/defaults/pcie-server-l40s.toml
  hardware/systems/defaults/pcie-server-rtx-2080-ti.toml
  hardware/systems/defaults/pcie-server-rtx-3090.toml
  hardware/systems/defaults/pcie-server-rtx-4090.toml
  hardware/systems/defaults/pcie-server-rtx-5090.toml
  hardware/systems/defaults/pcie-server-rtx-6000-ada.toml
  hardware/systems/defaults/pcie-server-t4.toml
)
