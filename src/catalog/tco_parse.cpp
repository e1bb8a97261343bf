// Parser for `kind = "tco_inputs"` files (data/econ/). Each sub-table is one figure with its
// own `date`, `source` and optional `notes`. Schema: docs/data-format.md.
#include <fmt/format.h>

#include "catalog/parsers.h"
#include "catalog/tco.h"

namespace gpuplan {
namespace {

// "2024", "2024-08" or "2024-08-01": as precise as the source is.
bool is_partial_date(std::string_view s) {
  if (s.size() != 4 && s.size() != 7 && s.size() != 10) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9')) return false;
  }
  return true;
}

// Reads the table's `date`, `notes`, `source`/`retrieved` (falling back to the file's) and
// the value under `key`; `zero_ok` allows 0 (an explicit "not counted").
DatedFigure figure(Fields& f, std::string_view key, const Provenance& parent, bool zero_ok = false) {
  DatedFigure fig;
  if (zero_ok) {
    const auto v = f.opt_nonneg(key);
    if (!v) f.missing(key, "the figure");
    fig.value = *v;
  } else {
    fig.value = f.pos(key);
  }
  fig.date = f.str("date");
  if (!is_partial_date(fig.date)) f.fail("date", fmt::format("'{}' is not YYYY, YYYY-MM or YYYY-MM-DD", fig.date));
  fig.notes = f.opt_str("notes").value_or("");
  fig.provenance = f.provenance(parent);
  return fig;
}

}  // namespace

TcoInputs parse_tco_inputs(Fields& top) {
  TcoInputs t;
  t.id = top.str("id");
  t.aliases = top.str_list("aliases");
  t.name = top.str("name");
  t.notes = top.opt_str("notes").value_or("");
  t.provenance = top.file_provenance();

  Fields elec = top.sub("electricity");
  t.usd_per_kwh = figure(elec, "usd_per_kwh", t.provenance);
  elec.finish();

  Fields pue = top.sub("pue");
  t.pue = figure(pue, "pue", t.provenance);
  if (t.pue.value < 1.0) pue.fail("pue", "a PUE is facility power over IT power, at least 1");
  pue.finish();

  Fields carbon = top.sub("carbon");
  t.kg_co2_per_kwh = figure(carbon, "kg_co2_per_kwh", t.provenance, true);
  carbon.finish();

  Fields ops = top.sub("operations");
  t.ops_usd_per_node_year = figure(ops, "usd_per_node_year", t.provenance, true);
  ops.finish();

  Fields net = top.sub("network");
  t.network_switch = net.str("switch");
  t.usd_per_switch = figure(net, "usd_per_switch", t.provenance);
  net.finish();

  Fields spot = top.sub("spot");
  t.spot_restart_h = spot.opt_nonneg("restart_hours").value_or(0);
  t.spot_checkpoint_interval_h = spot.opt_nonneg("checkpoint_interval_hours").value_or(0);
  t.spot_interruptions_per_instance_per_day = figure(spot, "interruptions_per_instance_per_day", t.provenance, true);
  spot.finish();

  for (Fields& s : top.table_array("server")) {
    ServerPrice price;
    price.system = s.str("system");
    price.usd = figure(s, "usd", t.provenance);
    s.finish();
    t.servers.push_back(std::move(price));
  }
  return t;
}

}  // namespace gpuplan
