// Parsers for `kind = "link" | "switch" | "nic" | "system" | "fabric"` files
// (data/hardware/{links,switches,nics,systems,fabrics}/). Schema: docs/data-format.md.
#include "catalog/parsers.h"
#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

Provenance top_provenance(Fields& top) {
  Provenance p;
  p.file = top.file();
  p.source = top.str("source");
  p.retrieved = top.str("retrieved");
  return p;
}

}  // namespace

Link parse_link(Fields& top) {
  Link link;
  link.id = top.str("id");
  link.aliases = top.str_list("aliases");
  link.name = top.str("name");
  link.family = top.str("family");
  link.generation = top.opt_str("generation").value_or("");
  link.per_link_bw_uni_bytes_per_s = top.pos("per_link_bw_uni_gb_per_s") * kGiga;
  link.links_per_device = static_cast<int>(top.opt_integer("links_per_device").value_or(0));
  link.device_bw_uni_bytes_per_s = top.opt_pos("device_bw_uni_gb_per_s").value_or(0) * kGiga;
  if (auto us = top.opt_pos("latency_us")) link.latency_s = *us * 1e-6;
  link.notes = top.opt_str("notes").value_or("");
  link.provenance = top_provenance(top);
  return link;
}

Switch parse_switch(Fields& top) { top.fail("kind", "switches not parsed yet"); }
Nic parse_nic(Fields& top) { top.fail("kind", "nics not parsed yet"); }
System parse_system(Fields& top) { top.fail("kind", "systems not parsed yet"); }
Fabric parse_fabric(Fields& top) { top.fail("kind", "fabrics not parsed yet"); }

}  // namespace gpuplan
