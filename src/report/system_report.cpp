#include "report/system_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "core/units.h"
#include "core/table.h"
#include "report/report_json.h"

namespace gpuplan {
namespace {

using json = nlohmann::ordered_json;

json levels_json(const std::vector<LevelBandwidth>& levels) {
  json out = json::array();
  for (const auto& l : levels) {
    out.push_back(json{{"name", l.name},
                       {"gpus", l.gpus},
                       {"subdomains", l.subdomains},
                       {"switch", l.switch_id},
                       {"switches", l.switches},
                       {"bw_uni_bytes_per_s", l.bw_uni_bytes_per_s},
                       {"bw_per_gpu_uni_bytes_per_s", l.bw_per_gpu_uni_bytes_per_s}});
  }
  return out;
}

std::string gbit(double bytes_per_s) { return fmt::format("{} Gb/s", fmt_number(bytes_per_s * 8 / kGiga)); }

// "300", "31.5", "6.25": up to two decimals, trailing zeros cut.
std::string trimmed(double value) {
  std::string text = fmt::format("{:.2f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// A bandwidth in GB/s for table cells; "-" when absent.
std::string gb_per_s(double bytes_per_s) { return bytes_per_s > 0 ? trimmed(bytes_per_s / kGiga) : "-"; }

std::string switches_cell(const System& s, const Catalog& c) {
  if (s.scaleup_topology != "switched") return s.scaleup_topology;
  std::string cell = fmt::format("{} x {}", s.nvswitch_count, s.nvswitch);
  if (s.nvswitch_trays > 0) cell += fmt::format(" ({} trays)", s.nvswitch_trays);
  if (s.in_network_reduction) {
    const Switch* sw = c.find_switch(s.nvswitch);
    cell += fmt::format(" {}", sw && !sw->reduction_name.empty() ? sw->reduction_name : "in-switch reduction");
  }
  return cell;
}

std::string nics_cell(const System& s) {
  if (s.nics == 0) return "-";
  return fmt::format("{} x {} {}", s.nics, gbit(s.nic_bw_uni_bytes_per_s), s.nic);
}

std::string levels_table(const std::vector<LevelBandwidth>& levels, const Fabric* f) {
  using A = TextTable::Align;
  TextTable table({"level", "GPUs", "subdomains", "switches", "ports down", "W (one way)", "per GPU", "oversub."},
                  {A::left, A::right, A::right, A::left, A::left, A::right, A::right, A::right});
  for (std::size_t idx = 0; idx < levels.size(); ++idx) {
    const auto& l = levels[idx];
    const FabricLevel* fl = (f && idx > 0) ? &f->levels[idx - 1] : nullptr;
    std::string sw = l.switches > 0 ? fmt::format("{} x {}", l.switches, l.switch_id) : l.switch_id;
    std::string ports = fl && fl->down_ports_per_switch > 0
                            ? fmt::format("{} x {}", fl->down_ports_per_switch, gbit(fl->port_bw_uni_bytes_per_s))
                            : "-";
    std::string oversub =
        fl ? fmt::format("{}:1", fmt_number(fl->oversubscription,
                                            fl->oversubscription == std::floor(fl->oversubscription) ? 0 : 1))
           : "-";
    table.add_row({l.name, fmt_number(l.gpus), fmt_number(l.subdomains), sw.empty() ? "-" : sw, ports,
                   format_bandwidth(l.bw_uni_bytes_per_s), format_bandwidth(l.bw_per_gpu_uni_bytes_per_s), oversub});
  }
  return table.render();
}

std::string sources_text(const Provenance& p, const std::vector<std::pair<std::string, Provenance>>& sections) {
  std::string out = fmt::format("Source ({}): {}\n", p.retrieved, p.source);
  for (const auto& [section, sp] : sections) out += fmt::format("  [{}] ({}): {}\n", section, sp.retrieved, sp.source);
  return out;
}

}  // namespace

std::string format_bandwidth(double bytes_per_s) {
  if (bytes_per_s <= 0) return "-";
  static const char* const kUnits[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s"};
  int idx = 0;
  double v = bytes_per_s;
  while (v >= 999.5 && idx < 5) {
    v /= 1000.0;
    ++idx;
  }
  const int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
  std::string text = fmt::format("{:.{}f}", v, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return fmt::format("{} {}", text, kUnits[idx]);
}

json system_json(const SystemAnswer& a) {
  const System& s = *a.system;
  const SystemFigures& f = a.figures;
  json j;
  j["id"] = s.id;
  j["name"] = s.name;
  j["aliases"] = s.aliases;
  j["kind"] = s.kind;
  j["vendor"] = s.vendor;
  j["gpu"] = s.gpu;
  j["gpus"] = s.gpus;
  j["gpus_per_host"] = s.gpus_per_host;
  j["scaleup_link"] = s.scaleup_link;
  j["scaleup_topology"] = s.scaleup_topology;
  j["scaleup_bw_uni_bytes_per_s"] = s.scaleup_bw_uni_bytes_per_s;
  j["scaleup_per_peer_bw_uni_bytes_per_s"] =
      s.scaleup_per_peer_bw_uni_bytes_per_s > 0 ? json(s.scaleup_per_peer_bw_uni_bytes_per_s) : json(nullptr);
  j["nvswitch"] = s.nvswitch;
  j["nvswitch_count"] = s.nvswitch_count;
  j["nvswitch_trays"] = s.nvswitch_trays;
  j["in_network_reduction"] = s.in_network_reduction;
  j["nic"] = s.nic;
  j["nics"] = s.nics;
  j["nic_bw_uni_bytes_per_s"] = s.nic_bw_uni_bytes_per_s;
  j["power_w"] = s.power_w ? json(*s.power_w) : json(nullptr);
  j["notes"] = s.notes;
  json d;
  d["switch_capacity_uni_bytes_per_s"] = f.switch_capacity_uni_bytes_per_s;
  d["total_node_bw_bytes_per_s"] = f.total_node_bw_uni_bytes_per_s;
  d["bisection_bw_bytes_per_s"] = f.bisection_bw_bytes_per_s;
  d["scaleout_bw_uni_bytes_per_s"] = f.scaleout_bw_uni_bytes_per_s;
  d["scaleout_bw_uni_bytes_per_s_per_gpu"] = f.scaleout_bw_uni_bytes_per_s_per_gpu;
  d["scaleup_to_scaleout_ratio"] = f.scaleup_to_scaleout_ratio > 0 ? json(f.scaleup_to_scaleout_ratio) : json(nullptr);
  d["levels"] = levels_json(a.levels);
  json fabrics = json::array();
  for (const std::string& id : a.fabric_ids) fabrics.push_back(id);
  d["fabrics"] = fabrics;
  j["derived"] = d;
  j["provenance"] = provenance_json(s.provenance);
  json sections = json::object();
  for (const auto& [section, p] : s.section_provenance) sections[section] = provenance_json(p);
  j["section_provenance"] = sections;
  return j;
}

json fabric_json(const SystemAnswer& a) {
  const Fabric& f = *a.fabric;
  const Catalog& c = *a.catalog;
  json j;
  j["id"] = f.id;
  j["name"] = f.name;
  j["aliases"] = f.aliases;
  j["kind"] = "fabric";
  j["system"] = c.system(f.system).id;
  j["gpus"] = f.levels.back().gpus;
  j["rail_optimized"] = f.rail_optimized;
  j["in_network_reduction"] = f.in_network_reduction;
  json levels = levels_json(a.levels);
  for (std::size_t idx = 0; idx < f.levels.size(); ++idx) {
    const FabricLevel& fl = f.levels[idx];
    json& l = levels[idx + 1];
    l["down_ports_per_switch"] = fl.down_ports_per_switch;
    l["port_bw_uni_bytes_per_s"] = fl.port_bw_uni_bytes_per_s;
    l["oversubscription"] = fl.oversubscription;
    l["notes"] = fl.notes;
  }
  j["levels"] = levels;
  j["notes"] = f.notes;
  j["provenance"] = provenance_json(f.provenance);
  return j;
}

json systems_json(const SystemsAnswer& a) {
  json j;
  j["count"] = a.systems.size();
  j["systems"] = json::array();
  for (const SystemAnswer& s : a.systems) j["systems"].push_back(system_json(s));
  j["fabrics"] = json::array();
  for (const SystemAnswer& f : a.fabrics) j["fabrics"].push_back(fabric_json(f));
  return j;
}

std::string systems_table_text(const SystemsAnswer& a) {
  using A = TextTable::Align;
  TextTable table({"id", "kind", "GPUs", "GPU", "scale-up link", "GB/s/GPU", "switches", "NICs", "out GB/s/GPU"},
                  {A::left, A::left, A::right, A::left, A::left, A::right, A::left, A::left, A::right});
  std::vector<const SystemAnswer*> systems;
  for (const SystemAnswer& s : a.systems) systems.push_back(&s);
  std::sort(systems.begin(), systems.end(),
            [](const SystemAnswer* x, const SystemAnswer* y) { return x->system->id < y->system->id; });
  for (const SystemAnswer* row : systems) {
    const System* s = row->system;
    const Catalog& c = *row->catalog;
    table.add_row({s->id, s->kind, fmt_number(s->gpus), s->gpu, s->scaleup_link.empty() ? "-" : s->scaleup_link,
                   gb_per_s(s->scaleup_bw_uni_bytes_per_s), switches_cell(*s, c), nics_cell(*s),
                   gb_per_s(s->scaleout_bw_uni_bytes_per_s_per_gpu())});
  }
  std::string text = table.render();
  text += "Bandwidths are one direction per GPU; 'gpuplan system ID' shows node totals, bisection and sources.\n";
  if (!a.fabrics.empty()) {
    TextTable fabrics({"fabric", "system", "GPUs", "per-GPU bandwidth by level (one way)", "rail", "in-network"},
                      {A::left, A::left, A::right, A::left, A::left, A::left});
    for (const SystemAnswer& row : a.fabrics) {
      const Fabric& f = *row.fabric;
      const Catalog& c = *row.catalog;
      std::vector<std::string> parts;
      for (const auto& l : row.levels) {
        parts.push_back(fmt::format("{} {}", l.name, format_bandwidth(l.bw_per_gpu_uni_bytes_per_s)));
      }
      fabrics.add_row({f.id, c.system(f.system).id, fmt_number(f.levels.back().gpus), join(parts, ", "),
                       f.rail_optimized ? "yes" : "no", f.in_network_reduction ? "yes" : "no"});
    }
    text += fmt::format("\n{}", fabrics.render());
  }
  return text;
}

std::string system_detail_text(const SystemAnswer& a) {
  const System& s = *a.system;
  const Catalog& c = *a.catalog;
  const SystemFigures& f = a.figures;
  std::string out = fmt::format("{} ({}): {} by {}\n", s.name, s.id, s.kind, s.vendor);
  if (!s.aliases.empty()) out += fmt::format("  aliases: {}\n", join(s.aliases, ", "));
  out += fmt::format("  {} x {}", s.gpus, s.gpu);
  if (s.gpus_per_host != s.gpus) out += fmt::format(" ({} per host / compute tray)", s.gpus_per_host);
  if (s.power_w) out += fmt::format("; about {} kW", trimmed(*s.power_w / kKilo));
  out += "\n\nScale-up: ";
  if (s.scaleup_topology == "none") {
    out += "none (one GPU)\n";
  } else {
    out += fmt::format("{}, {}", s.scaleup_link, s.scaleup_topology);
    if (s.scaleup_topology == "switched") out += fmt::format(" through {}", switches_cell(s, c));
    out += "\n";
    out +=
        fmt::format("  per GPU, one direction      {} ({} bidirectional)\n",
                    format_bandwidth(s.scaleup_bw_uni_bytes_per_s), format_bandwidth(2 * s.scaleup_bw_uni_bytes_per_s));
    if (s.scaleup_topology == "mesh") {
      out += fmt::format("  per peer, one direction     {} (a group of k GPUs gets only (k-1) peer links)\n",
                         format_bandwidth(s.scaleup_per_peer_bw_uni_bytes_per_s));
    }
    if (f.switch_capacity_uni_bytes_per_s > 0) {
      out += fmt::format("  switch capacity, one way    {}\n", format_bandwidth(f.switch_capacity_uni_bytes_per_s));
    }
    const bool capped = f.total_node_bw_uni_bytes_per_s < s.gpus * s.scaleup_bw_uni_bytes_per_s;
    out += fmt::format("  total node GPU bandwidth    {} (one way: {} GPUs x {}{})\n",
                       format_bandwidth(f.total_node_bw_uni_bytes_per_s), s.gpus,
                       format_bandwidth(s.scaleup_bw_uni_bytes_per_s), capped ? ", capped by the switches" : "");
    out += fmt::format("  bisection bandwidth         {} (both directions across the worst even split)\n",
                       format_bandwidth(f.bisection_bw_bytes_per_s));
    if (s.scaleup_topology == "pcie") out += "  (PCIe figures are upper bounds: the host bridge may carry less)\n";
  }
  out += "Scale-out: ";
  if (s.nics == 0) {
    out += "none\n";
  } else {
    out += fmt::format("{} = {} per {}, {} per GPU", nics_cell(s), format_bandwidth(f.scaleout_bw_uni_bytes_per_s),
                       s.kind, format_bandwidth(f.scaleout_bw_uni_bytes_per_s_per_gpu));
    if (f.scaleup_to_scaleout_ratio > 0) out += fmt::format(" (scale-up is {:.1f}x that)", f.scaleup_to_scaleout_ratio);
    out += "\n";
  }
  const std::vector<std::string>& fabrics = a.fabric_ids;
  if (!fabrics.empty()) out += fmt::format("Fabrics built from it: {} (gpuplan system FABRIC)\n", join(fabrics, ", "));
  if (!s.notes.empty()) out += fmt::format("\nNotes: {}\n", s.notes);
  out += fmt::format("\n{}", sources_text(s.provenance, s.section_provenance));
  return out;
}

std::string fabric_detail_text(const SystemAnswer& a) {
  const Fabric& f = *a.fabric;
  const Catalog& c = *a.catalog;
  const System& s = c.system(f.system);
  std::string out =
      fmt::format("{} ({}): fabric of {} {}s, {} GPUs\n", f.name, f.id, s.id, s.kind, fmt_number(f.levels.back().gpus));
  if (!f.aliases.empty()) out += fmt::format("  aliases: {}\n", join(f.aliases, ", "));
  std::vector<std::string> traits;
  if (f.rail_optimized) traits.push_back("rail-optimised (NIC i of every node goes to leaf i)");
  if (f.in_network_reduction) traits.push_back("in-network reduction in the switches");
  if (!traits.empty()) out += fmt::format("  {}\n", join(traits, "; "));
  out += "\nBandwidth by level (W = aggregate one-way bandwidth into one unit; per GPU = W / GPUs)\n";
  out += levels_table(a.levels, &f);
  for (const FabricLevel& fl : f.levels) {
    if (!fl.notes.empty()) out += fmt::format("  {}: {}\n", fl.name, fl.notes);
  }
  if (!f.notes.empty()) out += fmt::format("\nNotes: {}\n", f.notes);
  out += fmt::format("\n{}", sources_text(f.provenance, {}));
  return out;
}

json offers_json(const std::vector<const CloudOffer*>& offers) {
  json j;
  j["count"] = offers.size();
  j["offers"] = json::array();
  for (const CloudOffer* o : offers) {
    j["offers"].push_back(json{{"provider", o->provider},
                               {"instance", o->instance},
                               {"gpu", o->gpu},
                               {"gpu_count", o->gpu_count},
                               {"region", o->region},
                               {"pricing", o->pricing},
                               {"usd_per_hour", o->usd_per_hour},
                               {"usd_per_gpu_hour", o->usd_per_gpu_hour},
                               {"price_date", o->price_date},
                               {"price_date_estimated", o->price_date_estimated},
                               {"historical", o->historical},
                               {"gpu_component_only", o->gpu_component_only},
                               {"system", o->system},
                               {"notes", o->notes},
                               {"provenance", provenance_json(o->provenance)}});
  }
  return j;
}

std::string offers_table_text(const std::vector<const CloudOffer*>& offers) {
  using A = TextTable::Align;
  TextTable table({"provider", "instance", "GPU", "GPUs", "region", "pricing", "$/h", "$/GPU-h", "date", "flags"},
                  {A::left, A::left, A::left, A::right, A::left, A::left, A::right, A::right, A::left, A::left});
  bool any_estimated = false;
  for (const CloudOffer* o : offers) {
    std::vector<std::string> flags;
    if (o->historical) flags.push_back("historical");
    if (o->gpu_component_only) flags.push_back("GPU part only");
    any_estimated = any_estimated || o->price_date_estimated;
    table.add_row({o->provider, o->instance, o->gpu, fmt_number(o->gpu_count), o->region.empty() ? "-" : o->region,
                   o->pricing, fmt_number(o->usd_per_hour, 2), fmt_number(o->usd_per_gpu_hour, 2),
                   fmt::format("{}{}", o->price_date_estimated ? "~" : "", o->price_date), join(flags, ", ")});
  }
  std::string text = table.render();
  if (any_estimated) text += "~ the source gives no exact date; the date is an estimate (see --json notes).\n";
  text += "Prices move: every figure carries its date. 'GPU part only' leaves out the VM (vCPU/RAM) charge.\n";
  return text;
}

nlohmann::ordered_json to_json(const SystemAnswer& answer) {
  return answer.system ? system_json(answer) : fabric_json(answer);
}

std::string to_text(const SystemAnswer& answer) {
  return answer.system ? system_detail_text(answer) : fabric_detail_text(answer);
}

nlohmann::ordered_json to_json(const SystemsAnswer& answer) { return systems_json(answer); }

std::string to_text(const SystemsAnswer& answer) { return systems_table_text(answer); }

nlohmann::ordered_json to_json(const CloudsAnswer& answer) { return offers_json(answer.offers); }

std::string to_text(const CloudsAnswer& answer) { return offers_table_text(answer.offers); }

}  // namespace gpuplan
