// Cross-reference checks: every id an entry names must exist in the catalog.
#include <fmt/format.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

template <typename Table>
std::vector<std::string> ids_of(const Table& entries) {
  std::vector<std::string> ids;
  for (const auto& e : entries) ids.push_back(e.id);
  return ids;
}

void check_ref(bool found, const Provenance& where, std::string_view field, std::string_view what,
               std::string_view value, const std::vector<std::string>& ids) {
  if (found) return;
  throw Error(fmt::format("{}: {}: {}", where.file, field, unknown_name_message(what, value, ids)));
}

[[noreturn]] void fail_at(const Provenance& where, std::string_view field, const std::string& message) {
  throw Error(fmt::format("{}: {}: {}", where.file, field, message));
}

// A system cannot move more than its parts allow: checks its stated figures against the GPU,
// switch and NIC entries it names. (Not against the link entry: a --catalog file may derate a
// link to explore "what if", and the system's own per-GPU figure is the one models use.)
void check_system_figures(const Catalog& c, const System& s) {
  constexpr double kSlack = 1.001;
  if (const Gpu* gpu = c.find_gpu(s.gpu)) {
    if (gpu->scaleup_bw_uni_bytes_per_s > 0 &&
        s.scaleup_bw_uni_bytes_per_s > gpu->scaleup_bw_uni_bytes_per_s * kSlack) {
      fail_at(s.provenance, "scaleup.bw_uni_gb_per_s",
              fmt::format("{} GB/s per GPU is more than GPU '{}' has ({} GB/s)", s.scaleup_bw_uni_bytes_per_s / 1e9,
                          gpu->id, gpu->scaleup_bw_uni_bytes_per_s / 1e9));
    }
  }
  if (const Switch* sw = c.find_switch(s.nvswitch)) {
    if (s.in_network_reduction && !sw->in_network_reduction) {
      fail_at(s.provenance, "scaleup.in_network_reduction",
              fmt::format("switch '{}' has no in-network reduction", sw->id));
    }
  }
  if (const Nic* nic = c.find_nic(s.nic)) {
    if (s.nic_bw_uni_bytes_per_s > nic->bw_uni_bytes_per_s * kSlack) {
      fail_at(s.provenance, "scaleout.nic_gbit_per_s",
              fmt::format("{} Gb/s is faster than NIC '{}' ({} Gb/s)", s.nic_bw_uni_bytes_per_s * 8 / 1e9, nic->id,
                          nic->bw_uni_bytes_per_s * 8 / 1e9));
    }
  }
}

void check_fabric_figures(const Catalog& c, const Fabric& f) {
  const System* node = c.find_system(f.system);
  if (node && (f.levels.front().gpus <= node->gpus || f.levels.front().gpus % node->gpus != 0)) {
    fail_at(f.provenance, "levels.gpus",
            fmt::format("the first level's {} GPUs must be a multiple of system '{}' ({} GPUs)", f.levels.front().gpus,
                        node->id, node->gpus));
  }
  for (const auto& level : f.levels) {
    const Switch* sw = c.find_switch(level.switch_id);
    if (!sw) continue;
    if (level.down_ports_per_switch > sw->ports) {
      fail_at(f.provenance, "levels.down_ports_per_switch",
              fmt::format("level '{}': {} ports down, but switch '{}' has {}", level.name, level.down_ports_per_switch,
                          sw->id, sw->ports));
    }
    if (level.port_bw_uni_bytes_per_s > sw->port_bw_uni_bytes_per_s * 1.001) {
      fail_at(f.provenance, "levels.port_gbit_per_s",
              fmt::format("level '{}': ports faster than switch '{}' allows", level.name, sw->id));
    }
    if (f.in_network_reduction && !sw->in_network_reduction) {
      fail_at(f.provenance, "in_network_reduction",
              fmt::format("level '{}': switch '{}' has no in-network reduction", level.name, sw->id));
    }
  }
}

}  // namespace

void validate_catalog(const Catalog& c) {
  // One framework is what a plan runs under when the user names none.
  const Framework* first_default = nullptr;
  for (const auto& f : c.frameworks) {
    if (!f.is_default) continue;
    if (first_default) {
      fail_at(f.provenance, "default",
              fmt::format("framework '{}' is also marked default; keep default = true on one entry only",
                          first_default->id));
    }
    first_default = &f;
  }
  for (const auto& g : c.gpus) {
    if (!g.scaleup_link.empty()) {
      check_ref(c.find_link(g.scaleup_link), g.provenance, "scaleup_link", "link", g.scaleup_link, ids_of(c.links));
    }
  }
  for (const auto& s : c.systems) {
    check_ref(c.find_gpu(s.gpu), s.provenance, "gpu", "GPU", s.gpu, ids_of(c.gpus));
    if (!s.scaleup_link.empty()) {
      check_ref(c.find_link(s.scaleup_link), s.provenance, "scaleup_link", "link", s.scaleup_link, ids_of(c.links));
    }
    if (!s.nvswitch.empty()) {
      check_ref(c.find_switch(s.nvswitch), s.provenance, "nvswitch", "switch", s.nvswitch, ids_of(c.switches));
    }
    if (!s.nic.empty()) check_ref(c.find_nic(s.nic), s.provenance, "nic", "NIC", s.nic, ids_of(c.nics));
    check_system_figures(c, s);
  }
  for (const auto& n : c.nics) {
    if (!n.link.empty()) check_ref(c.find_link(n.link), n.provenance, "link", "link", n.link, ids_of(c.links));
  }
  for (const auto& sw : c.switches) {
    if (!sw.link.empty()) check_ref(c.find_link(sw.link), sw.provenance, "link", "link", sw.link, ids_of(c.links));
  }
  for (const auto& f : c.fabrics) {
    check_ref(c.find_system(f.system), f.provenance, "system", "system", f.system, ids_of(c.systems));
    for (const auto& level : f.levels) {
      if (!level.switch_id.empty()) {
        check_ref(c.find_switch(level.switch_id), f.provenance, "levels.switch", "switch", level.switch_id,
                  ids_of(c.switches));
      }
    }
    check_fabric_figures(c, f);
  }
  for (const auto& o : c.offers) {
    check_ref(c.find_gpu(o.gpu), o.provenance, "gpu", "GPU", o.gpu, ids_of(c.gpus));
    if (!o.system.empty()) {
      const System* sys = c.find_system(o.system);
      check_ref(sys, o.provenance, "system", "system", o.system, ids_of(c.systems));
      if (c.find_gpu(sys->gpu) != c.find_gpu(o.gpu)) {
        fail_at(o.provenance, "system",
                fmt::format("offer '{}' is priced for GPU '{}' but system '{}' holds '{}'", o.instance, o.gpu, sys->id,
                            sys->gpu));
      }
      if (o.gpu_count > sys->gpus) {
        fail_at(o.provenance, "gpu_count",
                fmt::format("offer '{}' has {} GPUs, more than system '{}' ({})", o.instance, o.gpu_count, sys->id,
                            sys->gpus));
      }
    }
  }
}

}  // namespace gpuplan
