#include "report/topology_import_report.h"

#include <fmt/format.h>

namespace gpuplan {
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string gb(double bytes_per_s) { return fmt::format("{:g}", bytes_per_s / 1e9); }

}  // namespace

std::string imported_system_toml(const ImportedTopology& imported, const std::string& retrieved) {
  const System& s = imported.system;
  std::string out = "# Written by gpuplan import-topology: keep it and pass it back with --catalog FILE.\n";
  for (const std::string& line : imported.derived) out += "# " + line + "\n";
  out += "kind = \"system\"\n";
  out += "id = " + toml_string(s.id) + "\n";
  out += "name = " + toml_string(s.name) + "\n";
  out += "system_kind = \"node\"\n";
  out += "vendor = " + toml_string(s.vendor) + "\n";
  out += "gpu = " + toml_string(s.gpu) + "\n";
  out += fmt::format("gpus = {}\n", s.gpus);
  if (s.gpus_per_host > 0 && s.gpus_per_host != s.gpus) out += fmt::format("gpus_per_host = {}\n", s.gpus_per_host);
  out += "notes = " + toml_string(s.notes) + "\n";
  const std::string what = imported.format == "nccl-xml" ? "NCCL topology dump (NCCL_TOPO_DUMP_FILE)" : "nvidia-smi topo -m output";
  out += "source = " + toml_string(what + ": " + imported.matrix.file) + "\n";
  out += "retrieved = " + toml_string(retrieved) + "\n";
  if (s.gpus > 1) {
    out += "\n[scaleup]\n";
    out += "link = " + toml_string(s.scaleup_link) + "\n";
    out += "topology = " + toml_string(s.scaleup_topology) + "\n";
    if (s.scaleup_topology == "switched") {
      out += "switch = " + toml_string(s.nvswitch) + "\n";
      out += fmt::format("switches = {}\n", s.nvswitch_count);
    }
    if (s.scaleup_topology == "mesh") out += "per_peer_bw_uni_gb_per_s = " + gb(s.scaleup_per_peer_bw_uni_bytes_per_s) + "\n";
    out += "bw_uni_gb_per_s = " + gb(s.scaleup_bw_uni_bytes_per_s) + "\n";
    if (s.in_network_reduction) out += "in_network_reduction = true\n";
  } else {
    // One GPU: no scale-up domain, said so, so that --catalog reads the file back (issue 34).
    out += "\n[scaleup]\ntopology = \"none\"\n";
  }
  if (s.nics > 0) {
    out += "\n[scaleout]\n";
    out += "nic = " + toml_string(s.nic) + "\n";
    out += fmt::format("nics = {}\n", s.nics);
    out += fmt::format("nic_gbit_per_s = {:g}\n", s.nic_bw_uni_bytes_per_s * 8 / 1e9);
  }
  return out;
}

nlohmann::ordered_json imported_system_json(const ImportedTopology& imported, const std::string& retrieved) {
  const System& s = imported.system;
  nlohmann::ordered_json j;
  j["format"] = imported.format;
  j["id"] = s.id;
  j["gpu"] = s.gpu;
  j["gpus"] = s.gpus;
  j["scaleup_link"] = s.scaleup_link;
  j["scaleup_topology"] = s.scaleup_topology;
  j["scaleup_bw_uni_bytes_per_s"] = s.scaleup_bw_uni_bytes_per_s;
  j["nvswitch"] = s.nvswitch;
  j["nvswitches"] = s.nvswitch_count;
  j["in_network_reduction"] = s.in_network_reduction;
  j["nic"] = s.nic;
  j["nics"] = s.nics;
  j["nic_bw_uni_bytes_per_s"] = s.nic_bw_uni_bytes_per_s;
  j["rails"] = imported.rails;
  if (imported.format == "nccl-xml") {
    j["sm"] = imported.sm;
    j["gpu_candidates"] = imported.gpu_candidates;
  }
  j["derived"] = imported.derived;
  j["toml"] = imported_system_toml(imported, retrieved);
  return j;
}

}  // namespace gpuplan
