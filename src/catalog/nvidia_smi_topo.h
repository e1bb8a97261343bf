// `nvidia-smi topo -m` as the driver prints it: a header of column names (GPU0.., NIC0.. or
// mlx5_0.., then "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"), one row per GPU and per NIC
// with the connection to every column (X, NV#, PIX, PXB, PHB, NODE, SYS; SOC on old drivers),
// then "Legend:" and "NIC Legend:" sections. Columns are tab-separated; a copy whose tabs became
// runs of two or more spaces reads the same. ANSI underline/bold codes are ignored.
//
// Strict: a row whose label is no column, a cell that is no connection kind, a matrix that is
// not square or a GPU without a row throws Error("FILE:LINE: ...") saying what to fix.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

struct TopoMatrix {
  std::string file;
  std::vector<std::string> gpus;  // "GPU0", ...
  std::vector<std::string> nics;  // "NIC0" or the device name ("mlx5_0")
  std::vector<std::string> nic_devices;  // from "NIC Legend" ("mlx5_0"); the column name when absent
  // gpu_gpu[i][j], gpu_nic[i][k]: "X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS".
  std::vector<std::vector<std::string>> gpu_gpu;
  std::vector<std::vector<std::string>> gpu_nic;
  std::vector<std::string> cpu_affinity;   // per GPU, "" when the column is absent
  std::vector<std::string> numa_affinity;  // per GPU, "" when the column is absent
  int header_line = 0;
};

// NVLinks in an "NV#" cell, 0 for any other cell.
int nvlink_count(std::string_view cell);

TopoMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& file);
TopoMatrix load_nvidia_smi_topo(const std::string& path);

}  // namespace gpuplan
