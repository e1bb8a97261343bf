// Parsers for `kind = "link" | "switch" | "nic" | "system" | "fabric"` files
// (data/hardware/{links,switches,nics,systems,fabrics}/). Schema: docs/data-format.md.
// Checks that need only the file itself live here; references to other entries are checked
// in validate.cpp once the whole catalog is loaded.
#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <string_view>

#include "catalog/parsers.h"
#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

// Network line rates are quoted in bits (a "400G" NIC); everything inside is bytes/s.
constexpr double kGbitPerS = kGiga / 8.0;


// A required string that must be one of `allowed`.
std::string one_of(Fields& f, std::string_view key, std::initializer_list<std::string_view> allowed) {
  const std::string value = f.str(key);
  for (auto a : allowed) {
    if (value == a) return value;
  }
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  f.fail(key, fmt::format("'{}' is not one of: {}", value, list));
}

int count(Fields& f, std::string_view key, int fallback = 0) {
  const auto v = f.opt_integer(key);
  if (!v) return fallback;
  if (*v > 1'000'000) f.fail(key, "implausibly large count");
  return static_cast<int>(*v);
}

int positive_count(Fields& f, std::string_view key) {
  if (!f.has(key)) f.missing(key, "required integer > 0");
  const int v = count(f, key);
  if (v <= 0) f.fail(key, "must be at least 1");
  return v;
}

bool close(double a, double b) { return std::fabs(a - b) <= 0.01 * std::max(std::fabs(a), std::fabs(b)); }

}  // namespace

Link parse_link(Fields& top) {
  Link link;
  link.id = top.str("id");
  link.aliases = top.str_list("aliases");
  link.name = top.str("name");
  link.family = one_of(top, "family", {"nvlink", "pcie", "infiniband", "ethernet", "xgmi", "ici", "neuronlink", "c2c"});
  link.generation = top.opt_str("generation").value_or("");
  link.per_link_bw_uni_bytes_per_s = top.pos("per_link_bw_uni_gb_per_s") * kGiga;
  link.links_per_device = count(top, "links_per_device");
  link.device_bw_uni_bytes_per_s = top.opt_pos("device_bw_uni_gb_per_s").value_or(0) * kGiga;
  // Derive the device figure from the links when it is not stated; when it is, it cannot
  // exceed what the links carry (a bidirectional headline typed as one-way would).
  const double from_links = link.per_link_bw_uni_bytes_per_s * std::max(link.links_per_device, 1);
  if (link.device_bw_uni_bytes_per_s == 0) {
    link.device_bw_uni_bytes_per_s = from_links;
  } else if (link.links_per_device > 0 && link.device_bw_uni_bytes_per_s > from_links * 1.01) {
    top.fail("device_bw_uni_gb_per_s",
             fmt::format("{} GB/s is more than links_per_device x per_link_bw_uni_gb_per_s = {} GB/s; "
                         "a bidirectional headline entered as one-way?",
                         link.device_bw_uni_bytes_per_s / kGiga, from_links / kGiga));
  }
  if (auto us = top.opt_pos("latency_us")) link.latency_s = *us * 1e-6;
  link.notes = top.opt_str("notes").value_or("");
  link.provenance = top.file_provenance();
  return link;
}

Switch parse_switch(Fields& top) {
  Switch sw;
  sw.id = top.str("id");
  sw.aliases = top.str_list("aliases");
  sw.name = top.str("name");
  sw.family = one_of(top, "family", {"nvswitch", "infiniband", "ethernet"});
  sw.link = top.str("link");
  sw.ports = positive_count(top, "ports");
  sw.port_bw_uni_bytes_per_s = top.pos("port_bw_uni_gb_per_s") * kGiga;
  sw.capacity_uni_bytes_per_s = sw.ports * sw.port_bw_uni_bytes_per_s;
  sw.in_network_reduction = top.boolean("in_network_reduction");
  sw.reduction_name = top.opt_str("reduction_name").value_or("");
  if (!sw.in_network_reduction && !sw.reduction_name.empty()) {
    top.fail("reduction_name", "set only when in_network_reduction = true");
  }
  if (sw.in_network_reduction && sw.reduction_name.empty()) {
    top.missing("reduction_name", "name of the in-network reduction, e.g. \"NVLS\" or \"SHARPv3\"");
  }
  if (auto us = top.opt_pos("latency_us")) sw.latency_s = *us * 1e-6;
  sw.notes = top.opt_str("notes").value_or("");
  sw.provenance = top.file_provenance();
  return sw;
}

Nic parse_nic(Fields& top) {
  Nic nic;
  nic.id = top.str("id");
  nic.aliases = top.str_list("aliases");
  nic.name = top.str("name");
  nic.link = top.str("link");
  nic.bw_uni_bytes_per_s = top.pos("bw_gbit_per_s") * kGbitPerS;
  nic.pcie_gen = count(top, "pcie_gen");
  if (top.has("rails")) {
    const auto rails = top.opt_integer("rails");
    if (!rails || *rails < 1 || *rails > 64) {
      top.fail("rails", "must be a whole number of cards in 1..64 (physical NICs behind this one NET device)");
    }
    nic.rails = static_cast<int>(*rails);
  }
  if (auto us = top.opt_pos("latency_us")) nic.latency_s = *us * 1e-6;
  nic.notes = top.opt_str("notes").value_or("");
  nic.provenance = top.file_provenance();
  return nic;
}

System parse_system(Fields& top) {
  System s;
  s.id = top.str("id");
  s.aliases = top.str_list("aliases");
  s.name = top.str("name");
  s.kind = one_of(top, "system_kind", {"node", "rack", "workstation"});
  s.vendor = top.str("vendor");
  s.gpu = top.str("gpu");
  s.gpus = positive_count(top, "gpus");
  s.gpus_per_host = count(top, "gpus_per_host", s.gpus);
  if (s.gpus_per_host <= 0 || s.gpus % s.gpus_per_host != 0) {
    top.fail("gpus_per_host", fmt::format("must divide gpus = {}", s.gpus));
  }
  if (auto w = top.opt_pos("power_w")) s.power_w = *w;
  s.notes = top.opt_str("notes").value_or("");
  s.provenance = top.file_provenance();

  Fields up = top.sub("scaleup");
  s.scaleup_topology = one_of(up, "topology", {"switched", "mesh", "pcie", "torus", "none"});
  s.scaleup_link = up.opt_str("link").value_or("");
  if (s.scaleup_topology != "none" && s.scaleup_link.empty()) up.missing("link", "link id of the scale-up domain");
  if (s.scaleup_topology == "none" && s.gpus > 1) {
    up.fail("topology", "'none' is for single-GPU systems; use pcie for GPUs that talk over PCIe only");
  }
  s.scaleup_bw_uni_bytes_per_s = up.opt_pos("bw_uni_gb_per_s").value_or(0) * kGiga;
  s.scaleup_per_peer_bw_uni_bytes_per_s = up.opt_pos("per_peer_bw_uni_gb_per_s").value_or(0) * kGiga;
  if (s.scaleup_topology == "mesh") {
    // A point-to-point mesh gives each peer one link: per GPU = per peer x (GPUs - 1).
    if (s.scaleup_per_peer_bw_uni_bytes_per_s == 0) up.missing("per_peer_bw_uni_gb_per_s", "required for a mesh");
    const double all_peers = s.scaleup_per_peer_bw_uni_bytes_per_s * (s.gpus - 1);
    if (s.scaleup_bw_uni_bytes_per_s == 0) {
      s.scaleup_bw_uni_bytes_per_s = all_peers;
    } else if (!close(s.scaleup_bw_uni_bytes_per_s, all_peers)) {
      up.fail("bw_uni_gb_per_s", fmt::format("{} GB/s disagrees with per_peer_bw_uni_gb_per_s x (gpus - 1) = {} GB/s",
                                             s.scaleup_bw_uni_bytes_per_s / kGiga, all_peers / kGiga));
    }
  } else if (s.scaleup_per_peer_bw_uni_bytes_per_s > 0) {
    up.fail("per_peer_bw_uni_gb_per_s", "only for topology = \"mesh\"");
  }
  if (s.scaleup_topology != "none" && s.scaleup_bw_uni_bytes_per_s == 0) {
    up.missing("bw_uni_gb_per_s", "scale-up bandwidth per GPU, one direction");
  }
  s.nvswitch = up.opt_str("switch").value_or("");
  s.nvswitch_count = count(up, "switches");
  s.nvswitch_trays = count(up, "switch_trays");
  if (s.scaleup_topology == "switched") {
    if (s.nvswitch.empty()) up.missing("switch", "switch id, required for topology = \"switched\"");
    if (s.nvswitch_count <= 0) up.missing("switches", "number of switch chips, required for topology = \"switched\"");
  } else if (!s.nvswitch.empty() || s.nvswitch_count > 0) {
    up.fail("switch", "only for topology = \"switched\"");
  }
  if (s.nvswitch_trays > 0 && s.nvswitch_count % s.nvswitch_trays != 0) {
    up.fail("switch_trays", fmt::format("must divide switches = {}", s.nvswitch_count));
  }
  s.in_network_reduction = up.opt_boolean("in_network_reduction").value_or(false);
  if (s.in_network_reduction && s.scaleup_topology != "switched") {
    up.fail("in_network_reduction", "needs a switch (topology = \"switched\")");
  }
  note_provenance(s, up, "scaleup");
  up.finish();

  if (auto out = top.opt_sub("scaleout")) {
    s.nics = count(*out, "nics");
    s.nic = out->opt_str("nic").value_or("");
    s.scaleout_transport = out->opt_str("transport").value_or("");
    if (auto gbit = out->opt_pos("nic_gbit_per_s")) s.nic_bw_uni_bytes_per_s = *gbit * kGbitPerS;
    if (s.nics > 0) {
      if (s.nic.empty()) out->missing("nic", "NIC id, required when nics > 0");
      if (s.nic_bw_uni_bytes_per_s == 0) out->missing("nic_gbit_per_s", "line rate each NIC runs at, in Gb/s");
    } else if (!s.nic.empty() || s.nic_bw_uni_bytes_per_s > 0) {
      out->missing("nics", "number of scale-out NICs, required when nic is given");
    }
    note_provenance(s, *out, "scaleout");
    out->finish();
  }
  if (auto host = top.opt_sub("host")) {
    s.host_cpus = host->opt_str("cpus").value_or("");
    s.host_memory_bytes = host->opt_pos("memory_gib").value_or(0) * kGiB;
    s.host_memory_bw_bytes_per_s = host->opt_pos("memory_bw_gb_per_s").value_or(0) * kGiga;
    if (s.host_memory_bytes == 0 && s.host_memory_bw_bytes_per_s == 0) {
      host->missing("memory_gib", "host DRAM in GiB (or memory_bw_gb_per_s); drop [host] when neither is known");
    }
    note_provenance(s, *host, "host");
    host->finish();
  }
  return s;
}

Fabric parse_fabric(Fields& top) {
  Fabric f;
  f.id = top.str("id");
  f.aliases = top.str_list("aliases");
  f.name = top.str("name");
  f.system = top.str("system");
  f.rail_optimized = top.opt_boolean("rail_optimized").value_or(false);
  f.in_network_reduction = top.opt_boolean("in_network_reduction").value_or(false);
  f.notes = top.opt_str("notes").value_or("");
  f.provenance = top.file_provenance();
  auto levels = top.table_array("levels");
  if (levels.empty()) top.missing("levels", "at least one [[levels]] table, innermost first");
  for (auto& lf : levels) {
    FabricLevel level;
    level.name = lf.str("name");
    level.gpus = positive_count(lf, "gpus");
    level.switch_id = lf.opt_str("switch").value_or("");
    level.switches = count(lf, "switches");
    level.down_ports_per_switch = count(lf, "down_ports_per_switch");
    level.port_bw_uni_bytes_per_s = lf.opt_pos("port_gbit_per_s").value_or(0) * kGbitPerS;
    level.oversubscription = lf.opt_pos("oversubscription").value_or(1.0);
    level.notes = lf.opt_str("notes").value_or("");
    if (level.oversubscription < 1.0) lf.fail("oversubscription", "downlink:uplink ratio must be >= 1");

    // W_i from the ports, or stated; when both are given they must agree.
    const bool has_ports = level.switches > 0 && level.down_ports_per_switch > 0 && level.port_bw_uni_bytes_per_s > 0;
    if (!has_ports && (level.down_ports_per_switch > 0 || level.port_bw_uni_bytes_per_s > 0)) {
      lf.missing(level.switches == 0                ? "switches"
                 : level.down_ports_per_switch == 0 ? "down_ports_per_switch"
                                                    : "port_gbit_per_s",
                 "switches, down_ports_per_switch and port_gbit_per_s go together");
    }
    const double from_ports = level.switches * level.down_ports_per_switch * level.port_bw_uni_bytes_per_s;
    const auto stated = lf.opt_pos("bw_uni_tb_per_s");
    if (stated && has_ports && !close(*stated * kTera, from_ports)) {
      lf.fail("bw_uni_tb_per_s", fmt::format("{} TB/s disagrees with switches x down_ports_per_switch x "
                                             "port_gbit_per_s = {} TB/s",
                                             *stated, from_ports / kTera));
    }
    if (!stated && !has_ports) {
      lf.missing("bw_uni_tb_per_s", "W_i: give bw_uni_tb_per_s, or switches + down_ports_per_switch + port_gbit_per_s");
    }
    level.bw_uni_bytes_per_s = has_ports ? from_ports : *stated * kTera;

    // Levels go outwards: each unit holds a whole number of units of the level below.
    if (!f.levels.empty()) {
      const int inner = f.levels.back().gpus;
      if (level.gpus <= inner || level.gpus % inner != 0) {
        lf.fail("gpus", fmt::format("levels go innermost first: {} GPUs must be a multiple of the previous level's {}",
                                    level.gpus, inner));
      }
    }
    lf.finish();
    f.levels.push_back(std::move(level));
  }
  return f;
}

}  // namespace gpuplan
