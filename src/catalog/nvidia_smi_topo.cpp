#include "catalog/nvidia_smi_topo.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan {
namespace {

std::string strip_ansi(std::string_view line) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
      continue;
    }
    if (line[i] != '\r') out += line[i];
  }
  return out;
}

std::string trim(std::string_view s) {
  std::size_t a = 0;
  std::size_t b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

// Cells separated by a tab or by two or more spaces; empty cells dropped.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const bool sep = line[i] == '\t' || (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ');
    if (sep) {
      if (!trim(cur).empty()) out.push_back(trim(cur));
      cur.clear();
      while (i + 1 < line.size() && (line[i + 1] == ' ' || line[i + 1] == '\t')) ++i;
      continue;
    }
    cur += line[i];
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_gpu_name(std::string_view s) {
  if (!starts_with(s, "GPU") || s.size() == 3) return false;
  return std::all_of(s.begin() + 3, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_connection(std::string_view c) {
  if (c == "X" || c == "PIX" || c == "PXB" || c == "PHB" || c == "NODE" || c == "SYS" || c == "SOC") return true;
  return nvlink_count(c) > 0;
}

}  // namespace

int nvlink_count(std::string_view cell) {
  if (!starts_with(cell, "NV") || cell.size() < 3 || cell.size() > 5) return 0;
  int n = 0;
  for (char c : cell.substr(2)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

TopoMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& file) {
  TopoMatrix m;
  m.file = file;
  std::vector<std::string> columns;
  int cpu_col = -1;
  int numa_col = -1;
  std::vector<bool> gpu_seen;
  bool in_legend = false;
  bool in_nic_legend = false;
  int line_no = 0;
  std::size_t pos = 0;
  const auto fail = [&](const std::string& what) { throw Error(fmt::format("{}:{}: {}", file, line_no, what)); };
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string line = strip_ansi(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    const std::vector<std::string> c = cells(line);
    if (c.empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (c[0] == "Legend:") {
      // The connection legend ("X = Self", "SYS = ...") up to the NIC legend: nothing to read.
      in_legend = true;
      if (columns.empty()) fail("'Legend:' before the matrix header (GPU0 GPU1 ...); give the whole nvidia-smi topo -m output");
      continue;
    }
    if (c[0] == "NIC Legend:") {
      in_legend = false;
      in_nic_legend = true;
      continue;
    }
    if (in_legend) continue;
    if (in_nic_legend) {
      // "NIC0: mlx5_0"
      const std::string t = trim(line);
      const auto colon = t.find(':');
      if (colon != std::string::npos) {
        const std::string name = trim(t.substr(0, colon));
        const auto it = std::find(m.nics.begin(), m.nics.end(), name);
        if (it != m.nics.end()) m.nic_devices[static_cast<std::size_t>(it - m.nics.begin())] = trim(t.substr(colon + 1));
      }
      if (end == text.size()) break;
      continue;
    }
    if (columns.empty()) {
      if (!is_gpu_name(c[0])) {
        if (end == text.size()) break;
        continue;  // text before the matrix (a prompt, a banner)
      }
      m.header_line = line_no;
      for (std::size_t i = 0; i < c.size(); ++i) {
        const std::string& name = c[i];
        if (name == "CPU Affinity") {
          cpu_col = static_cast<int>(i);
        } else if (name == "NUMA Affinity" || name == "NUMA") {
          numa_col = static_cast<int>(i);
        } else if (name == "GPU NUMA ID") {
          // not used
        } else if (is_gpu_name(name)) {
          if (!m.nics.empty()) fail(fmt::format("column {} after the NIC columns; GPU columns come first", name));
          m.gpus.push_back(name);
        } else if (cpu_col < 0 && numa_col < 0) {
          m.nics.push_back(name);
        } else {
          fail(fmt::format("unknown column '{}' after the affinity columns", name));
        }
        columns.push_back(name);
      }
      m.nic_devices = m.nics;
      const std::size_t g = m.gpus.size();
      m.gpu_gpu.assign(g, std::vector<std::string>(g));
      m.gpu_nic.assign(g, std::vector<std::string>(m.nics.size()));
      m.cpu_affinity.assign(g, "");
      m.numa_affinity.assign(g, "");
      gpu_seen.assign(g, false);
      continue;
    }
    // A matrix row: the label, then one cell per GPU and NIC column, then affinities (GPU rows).
    const std::string& label = c[0];
    const auto gpu_it = std::find(m.gpus.begin(), m.gpus.end(), label);
    const auto nic_it = std::find(m.nics.begin(), m.nics.end(), label);
    if (gpu_it == m.gpus.end() && nic_it == m.nics.end()) {
      fail(fmt::format("row '{}' names no column of the header (line {}); expected one of the GPU or NIC names",
                       label, m.header_line));
    }
    const std::size_t links = m.gpus.size() + m.nics.size();
    if (c.size() < 1 + links) {
      fail(fmt::format("row '{}' has {} connection cells, the header has {} GPU and NIC columns", label, c.size() - 1,
                       links));
    }
    for (std::size_t j = 0; j < links; ++j) {
      if (!is_connection(c[1 + j])) {
        fail(fmt::format("row '{}', column '{}': '{}' is no connection kind (X, NV#, PIX, PXB, PHB, NODE, SYS)", label,
                         columns[j], c[1 + j]));
      }
    }
    if (gpu_it == m.gpus.end()) continue;  // NIC rows repeat the GPU rows' cells
    const std::size_t i = static_cast<std::size_t>(gpu_it - m.gpus.begin());
    if (gpu_seen[i]) fail(fmt::format("a second row for {}", label));
    gpu_seen[i] = true;
    for (std::size_t j = 0; j < m.gpus.size(); ++j) {
      const std::string& cell = c[1 + j];
      if ((i == j) != (cell == "X")) {
        fail(fmt::format("row '{}', column '{}': 'X' marks a GPU's own column and only it, got '{}'", label,
                         m.gpus[j], cell));
      }
      m.gpu_gpu[i][j] = cell;
    }
    for (std::size_t k = 0; k < m.nics.size(); ++k) m.gpu_nic[i][k] = c[1 + m.gpus.size() + k];
    const auto extra = [&](int col) -> std::string {
      if (col < 0) return "";
      const std::size_t at = static_cast<std::size_t>(col) + 1;
      return at < c.size() ? c[at] : "";
    };
    m.cpu_affinity[i] = extra(cpu_col);
    m.numa_affinity[i] = extra(numa_col);
    if (end == text.size()) break;
  }
  if (columns.empty()) {
    throw Error(fmt::format("{}: no 'GPU0 GPU1 ...' header found; give the output of nvidia-smi topo -m as printed",
                            file));
  }
  for (std::size_t i = 0; i < m.gpus.size(); ++i) {
    if (!gpu_seen[i]) {
      throw Error(fmt::format("{}:{}: the header names {} but it has no row", file, m.header_line, m.gpus[i]));
    }
  }
  return m;
}

TopoMatrix load_nvidia_smi_topo(const std::string& path) {
  return parse_nvidia_smi_topo(read_input_file(path, "topology file"), path);
}

}  // namespace gpuplan
