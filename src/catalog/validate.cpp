// Cross-reference checks: every id an entry names must exist in the catalog.
#include <fmt/format.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {
namespace {

template <typename T>
std::vector<std::string> ids_of(const std::vector<T>& entries) {
  std::vector<std::string> ids;
  for (const auto& e : entries) ids.push_back(e.id);
  return ids;
}

void check_ref(bool found, const Provenance& where, std::string_view field, std::string_view what,
               std::string_view value, const std::vector<std::string>& ids) {
  if (found) return;
  throw Error(fmt::format("{}: {}: {}", where.file, field, unknown_name_message(what, value, ids)));
}

}  // namespace

void validate_catalog(const Catalog& c) {
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
  }
  for (const auto& o : c.offers) {
    check_ref(c.find_gpu(o.gpu), o.provenance, "gpu", "GPU", o.gpu, ids_of(c.gpus));
    if (!o.system.empty()) {
      check_ref(c.find_system(o.system), o.provenance, "system", "system", o.system, ids_of(c.systems));
    }
  }
}

}  // namespace gpuplan
