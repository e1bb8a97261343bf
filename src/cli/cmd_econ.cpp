// gpuplan cost | tco | energy: what a run costs in the cloud, owning against renting, and the
// energy and CO2 of a run. Every default is a dated catalog figure (data/clouds/, data/econ/)
// and every figure can be overridden; the output says which was used. Formulas:
// docs/model/economics.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "core/error.h"
#include "core/strings.h"
#include "core/units.h"
#include "econ/energy.h"
#include "econ/run_cost.h"
#include "econ/tco.h"
#include "report/econ_report.h"
#include "core/table.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();
bool given(double v) { return !std::isnan(v); }

// Bad numbers are bad input: the message names the flag.
void require_positive(double v, const char* flag) {
  if (given(v) && !(v > 0 && std::isfinite(v)))
    throw Error(fmt::format("{} must be a positive number (got {})", flag, v));
}
void require_nonneg(double v, const char* flag) {
  if (given(v) && !(v >= 0 && std::isfinite(v)))
    throw Error(fmt::format("{} must be zero or positive (got {})", flag, v));
}
void require_fraction(double v, const char* flag, bool zero_ok) {
  if (given(v) && !((zero_ok ? v >= 0 : v > 0) && v <= 1)) {
    throw Error(fmt::format("{} must be in {}0, 1] (got {})", flag, zero_ok ? "[" : "(", v));
  }
}
void require_count(int v, const char* flag) {
  if (v < 1) throw Error(fmt::format("{} must be at least 1 (got {})", flag, v));
}

const TcoInputs& econ_inputs(const Catalog& catalog) {
  for (const TcoInputs& t : catalog.tco_inputs) {
    if (t.id == "default") return t;
  }
  throw Error(
      "the catalog has no tco_inputs entry with id 'default' (data/econ/tco-inputs.toml); load one with "
      "--catalog or pass every figure on the command line");
}

std::string first_source(const Provenance& p) {
  const auto cut = p.source.find(" ; ");
  return cut == std::string::npos ? p.source : p.source.substr(0, cut);
}

// "catalog [pue], dated 2025: https://..."
std::string from_catalog(const DatedFigure& f, std::string_view table) {
  return fmt::format("catalog [{}], dated {}: {}", table, f.date, first_source(f.provenance));
}

SourcedFigure pick(double override_value, const char* flag, const DatedFigure& f, std::string_view table) {
  if (given(override_value)) return {override_value, flag};
  return {f.value, from_catalog(f, table)};
}

void check_provider(const Catalog& catalog, const std::string& provider) {
  if (provider.empty()) return;
  std::vector<std::string> known;
  for (const CloudOffer& o : catalog.offers) {
    if (std::find(known.begin(), known.end(), o.provider) == known.end()) known.push_back(o.provider);
  }
  if (std::any_of(known.begin(), known.end(),
                  [&](const std::string& p) { return normalize_name(p) == normalize_name(provider); })) {
    return;
  }
  std::sort(known.begin(), known.end());
  throw Error(fmt::format("unknown provider '{}'; known providers: {}", provider, join(known, ", ")));
}

bool offer_selected(const Catalog& catalog, const CloudOffer& o, const Gpu& gpu, const std::string& provider,
                    const std::string& instance, bool all) {
  if (o.historical && !all) return false;
  if (o.pricing == "index") return false;  // a published index, not something one can rent
  if (catalog.find_gpu(o.gpu) != &gpu) return false;
  if (!provider.empty() && normalize_name(o.provider) != normalize_name(provider)) return false;
  if (!instance.empty() && normalize_name(o.instance) != normalize_name(instance)) return false;
  return true;
}

std::string offer_source(const CloudOffer& o) { return first_source(o.provenance); }

// ---------------------------------------------------------------- cost

struct CostOpts {
  std::string gpu;
  double gpu_hours = kUnset;
  int gpus = 0;
  double days = kUnset;
  double hours = kUnset;
  std::string model;
  std::string tokens;
  double mfu = 0.4;
  std::string provider;
  std::string instance;
  bool all = false;
  double usd_per_hour = kUnset;
  double usd_per_gpu_hour = kUnset;
  double spot_overhead = kUnset;
  double spot_discount = kUnset;
  double interruptions_per_day = kUnset;
  double restart_hours = kUnset;
  double checkpoint_hours = kUnset;
  bool json = false;
};

CostReport build_cost(const CostOpts& o, const Catalog& catalog) {
  for (auto [v, flag] : {std::pair{o.gpu_hours, "--gpu-hours"},
                         {o.days, "--days"},
                         {o.hours, "--hours"},
                         {o.usd_per_hour, "--usd-per-hour"},
                         {o.usd_per_gpu_hour, "--usd-per-gpu-hour"}}) {
    require_positive(v, flag);
  }
  require_nonneg(o.spot_overhead, "--spot-overhead");
  require_fraction(o.spot_discount, "--spot-discount", true);
  require_fraction(o.mfu, "--mfu", false);
  require_nonneg(o.interruptions_per_day, "--interruptions-per-day");
  require_nonneg(o.restart_hours, "--restart-hours");
  require_nonneg(o.checkpoint_hours, "--checkpoint-hours");
  if (o.gpus != 0) require_count(o.gpus, "--gpus");
  const int modes = int(given(o.gpu_hours)) + int(!o.model.empty()) + int(given(o.days) || given(o.hours));
  if (modes != 1) {
    throw Error(
        "give the run one way: --gpu-hours H, or --gpus N with --days D or --hours H, or --model M "
        "--tokens T --gpus N");
  }
  if (given(o.days) && given(o.hours)) throw Error("give --days or --hours, not both");
  if (given(o.usd_per_hour) && given(o.usd_per_gpu_hour))
    throw Error("give --usd-per-hour or --usd-per-gpu-hour, not both");
  check_provider(catalog, o.provider);

  const Gpu& gpu = catalog.gpu(o.gpu);
  CostReport r;
  r.gpu = gpu.id;
  r.gpus = o.gpus;
  if (!o.model.empty()) {
    if (o.tokens.empty()) throw Error("--model needs --tokens T (e.g. 100B)");
    if (o.gpus == 0) throw Error("--model needs --gpus N");
    const ModelSpec& model = catalog.model(o.model);
    const double peak = gpu.dense(Precision::bf16);
    if (!(peak > 0))
      throw Error(fmt::format("GPU '{}' has no dense BF16 peak in the catalog; pick another --gpu", gpu.id));
    ModelDuration& m = r.model;
    r.has_model = true;
    m.model = model.id;
    m.params = count_params(model).active;
    m.tokens = parse_count(o.tokens, "--tokens");
    m.flops = training_flops_6nd(m.params, m.tokens);
    m.peak_flops_per_s = peak;
    m.mfu = o.mfu;
    m.hours_at_full_mfu = training_seconds(m.flops, o.gpus, peak, 1.0) / 3600;
    m.hours_at_mfu = training_seconds(m.flops, o.gpus, peak, o.mfu) / 3600;
    m.hours_at_half_mfu = training_seconds(m.flops, o.gpus, peak, 0.5) / 3600;
    r.wall_hours = m.hours_at_mfu;
  } else if (given(o.gpu_hours)) {
    if (o.gpus != 0) throw Error("--gpu-hours already counts the GPUs; drop --gpus (or use --gpus N --hours H)");
    r.gpu_hours = o.gpu_hours;
  } else {
    r.wall_hours = given(o.days) ? o.days * 24 : o.hours;
  }
  if (r.wall_hours > 0 && r.gpus > 0) r.gpu_hours = r.wall_hours * r.gpus;

  const TcoInputs& inputs = econ_inputs(catalog);
  r.spot.interruptions_per_instance_per_day =
      given(o.interruptions_per_day) ? o.interruptions_per_day : inputs.spot_interruptions_per_instance_per_day.value;
  r.spot.restart_h = given(o.restart_hours) ? o.restart_hours : inputs.spot_restart_h;
  r.spot.checkpoint_interval_h = given(o.checkpoint_hours) ? o.checkpoint_hours : inputs.spot_checkpoint_interval_h;
  r.spot_overhead_fixed = given(o.spot_overhead);
  r.spot_overhead = r.spot_overhead_fixed ? o.spot_overhead : 0;
  const bool spot_overridden = given(o.interruptions_per_day) || given(o.restart_hours) || given(o.checkpoint_hours);
  r.spot_from = r.spot_overhead_fixed ? "--spot-overhead"
                : spot_overridden     ? "command line, catalog [spot] for the rest"
                                      : from_catalog(inputs.spot_interruptions_per_instance_per_day, "spot") +
                                        " (an assumption; see its notes)";

  auto overhead_for = [&](int instances) {
    return r.spot_overhead_fixed ? r.spot_overhead : spot_overhead_fraction(r.spot, std::max(instances, 1));
  };
  // Prices one row; `gpus_per_instance` 0 means billed per GPU-hour.
  auto price = [&](double usd_per_gpu_hour, int gpus_per_instance, bool spot) {
    if (r.wall_hours <= 0) {
      return price_gpu_hours(r.gpu_hours, usd_per_gpu_hour, spot ? overhead_for(1) : 0.0);
    }
    const int run_gpus = r.gpus > 0 ? r.gpus : std::max(gpus_per_instance, 1);
    const int per_instance = gpus_per_instance > 0 ? gpus_per_instance : 1;
    const int instances = (run_gpus + per_instance - 1) / per_instance;
    return price_run_on_instances(run_gpus, r.wall_hours, per_instance, usd_per_gpu_hour,
                                  spot ? overhead_for(instances) : 0.0);
  };

  if (given(o.usd_per_hour) || given(o.usd_per_gpu_hour)) {
    CostRow row;
    row.provider = "(given)";
    row.instance = "-";
    row.pricing = "on-demand";
    if (given(o.usd_per_hour)) {
      if (r.wall_hours <= 0)
        throw Error("--usd-per-hour needs a duration (--days/--hours); with --gpu-hours use --usd-per-gpu-hour");
      const int run_gpus = r.gpus > 0 ? r.gpus : 1;
      row.gpus_per_instance = run_gpus;  // the given price covers all the run's GPUs
      row.usd_per_gpu_hour = o.usd_per_hour / run_gpus;
      row.source =
          fmt::format("--usd-per-hour {} for all {} GPU{}", o.usd_per_hour, run_gpus, run_gpus == 1 ? "" : "s");
    } else {
      row.gpus_per_instance = 0;
      row.usd_per_gpu_hour = o.usd_per_gpu_hour;
      row.source = "--usd-per-gpu-hour";
    }
    row.cost = price(row.usd_per_gpu_hour, row.gpus_per_instance, false);
    r.rows.push_back(row);
  } else {
    for (const CloudOffer& offer : catalog.offers) {
      if (!offer_selected(catalog, offer, gpu, o.provider, o.instance, o.all)) continue;
      CostRow row;
      row.provider = offer.provider;
      row.instance = offer.instance;
      row.pricing = offer.pricing;
      row.price_date = offer.price_date;
      row.price_date_estimated = offer.price_date_estimated;
      row.historical = offer.historical;
      row.gpus_per_instance = offer.gpu_count;
      row.usd_per_gpu_hour = offer.usd_per_gpu_hour;
      row.source = offer_source(offer);
      row.cost = price(row.usd_per_gpu_hour, row.gpus_per_instance, offer.pricing == "spot");
      r.rows.push_back(row);
      if (offer.gpu_component_only) {
        r.notes.push_back(
            fmt::format("{} {}: the price leaves out the separately billed VM part", offer.provider, offer.instance));
      }
    }
    if (r.rows.empty()) {
      throw Error(
          fmt::format("no cloud offer for GPU '{}'{}{} in the catalog (see 'gpuplan clouds --all'); pass "
                      "--usd-per-hour or --usd-per-gpu-hour",
                      gpu.id, o.provider.empty() ? "" : " at provider '" + o.provider + "'",
                      o.instance.empty() ? "" : " instance '" + o.instance + "'"));
    }
  }
  if (given(o.spot_discount)) {
    // A spot row derived from each on-demand row: price × (1 − discount), plus the restart overhead.
    const std::size_t n = r.rows.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (r.rows[i].pricing != "on-demand") continue;
      CostRow spot = r.rows[i];
      spot.pricing = "spot (derived)";
      spot.usd_per_gpu_hour *= 1.0 - o.spot_discount;
      spot.source = fmt::format("on-demand × (1 − --spot-discount {})", o.spot_discount);
      spot.cost = price(spot.usd_per_gpu_hour, spot.gpus_per_instance, true);
      r.rows.push_back(spot);
    }
  }
  std::stable_sort(r.rows.begin(), r.rows.end(),
                   [](const CostRow& a, const CostRow& b) { return a.cost.usd < b.cost.usd; });
  if (std::none_of(r.rows.begin(), r.rows.end(),
                   [](const CostRow& row) { return row.pricing.rfind("spot", 0) == 0; })) {
    r.notes.push_back("no dated spot price among these offers; --spot-discount F derives one from on-demand");
  }
  if (std::any_of(r.rows.begin(), r.rows.end(),
                  [](const CostRow& row) { return row.pricing.rfind("reserved", 0) == 0; })) {
    r.notes.push_back(
        "reserved rows price the run at the reserved rate; the reservation's term (1-3 years) is paid "
        "whether or not it is used");
  }
  return r;
}

// ---------------------------------------------------------------- tco

struct TcoOpts {
  std::string gpu;
  int gpus = 0;
  std::string system;
  double years = kUnset;
  double capex = kUnset;
  double power_kw = kUnset;
  double pue = kUnset;
  double usd_per_kwh = kUnset;
  double ops_usd_per_year = kUnset;
  double cloud_usd_per_hour = kUnset;
  std::string provider;
  bool all = false;
  bool json = false;
};

// The system a GPU's on-prem price is known for (a [[server]] entry), else any with power.
const System* tco_system_for(const Catalog& catalog, const TcoInputs& inputs, const Gpu& gpu) {
  for (const ServerPrice& s : inputs.servers) {
    const System* sys = catalog.find_system(s.system);
    if (sys && catalog.find_gpu(sys->gpu) == &gpu) return sys;
  }
  for (const System& sys : catalog.systems) {
    if (catalog.find_gpu(sys.gpu) == &gpu && sys.power_w && sys.kind == "node") return &sys;
  }
  return nullptr;
}

const ServerPrice* server_price_for(const Catalog& catalog, const TcoInputs& inputs, const System& system) {
  for (const ServerPrice& s : inputs.servers) {
    if (catalog.find_system(s.system) == &system) return &s;
  }
  return nullptr;
}

TcoReport build_tco(const TcoOpts& o, const Catalog& catalog) {
  for (auto [v, flag] : {std::pair{o.years, "--years"}, {o.cloud_usd_per_hour, "--cloud-usd-per-hour"}}) {
    require_positive(v, flag);
  }
  for (auto [v, flag] : {std::pair{o.capex, "--capex"},
                         {o.power_kw, "--power-kw"},
                         {o.usd_per_kwh, "--usd-per-kwh"},
                         {o.ops_usd_per_year, "--ops-usd-per-year"}}) {
    require_nonneg(v, flag);
  }
  if (given(o.pue) && !(o.pue >= 1 && std::isfinite(o.pue)))
    throw Error(fmt::format("--pue must be at least 1 (got {})", o.pue));
  if (o.gpus != 0) require_count(o.gpus, "--gpus");
  check_provider(catalog, o.provider);

  const TcoInputs& inputs = econ_inputs(catalog);
  const Gpu& gpu = catalog.gpu(o.gpu);
  const System* system = nullptr;
  if (!o.system.empty()) {
    system = &catalog.system(o.system);
    if (catalog.find_gpu(system->gpu) != &gpu) {
      throw Error(fmt::format("system '{}' holds {}, not {}", system->id, system->gpu, gpu.id));
    }
  } else {
    system = tco_system_for(catalog, inputs, gpu);
  }

  TcoReport r;
  r.gpu = gpu.id;
  r.system = system ? system->id : "";
  if (system) {
    r.gpus = o.gpus > 0 ? o.gpus : system->gpus;
    r.nodes = (r.gpus + system->gpus - 1) / system->gpus;
    r.gpus = r.nodes * system->gpus;  // whole nodes are bought
  } else {
    if (o.gpus == 0)
      throw Error(fmt::format("no catalog system holds {}; pass --gpus N (and --capex, --power-kw)", gpu.id));
    r.gpus = o.gpus;
    r.nodes = 1;
  }
  r.years = given(o.years) ? SourcedFigure{o.years, "--years"} : SourcedFigure{5, "default, as Lenovo LP2225"};

  // Capex: servers plus, beyond one node, a fat tree of the catalog's switch.
  if (given(o.capex)) {
    r.capex_usd = {o.capex, "--capex"};
  } else {
    const ServerPrice* price = system ? server_price_for(catalog, inputs, *system) : nullptr;
    if (!price) {
      throw Error(fmt::format("no dated server price for {} in the catalog (data/econ/); pass --capex USD",
                              system ? "system '" + system->id + "'" : "GPU '" + gpu.id + "'"));
    }
    r.server_usd = {price->usd.value, from_catalog(price->usd, "server " + price->system)};
    const Switch& sw = catalog.switch_(inputs.network_switch);
    r.switches = r.nodes > 1 ? fat_tree_switches(r.nodes * system->nics, sw.ports) : 0;
    r.switch_usd = {inputs.usd_per_switch.value, from_catalog(inputs.usd_per_switch, "network " + sw.id)};
    const double total = r.nodes * r.server_usd.value + r.switches * r.switch_usd.value;
    r.capex_usd = {total,
                   fmt::format("{} × {} USD server ({}){}", r.nodes, fmt_number(r.server_usd.value), r.server_usd.from,
                               r.switches > 0 ? fmt::format(" + {} × {} USD {} switches", r.switches,
                                                            fmt_number(r.switch_usd.value), sw.id)
                                              : std::string(", no switches (one node)"))};
  }
  if (given(o.power_kw)) {
    r.it_power_kw = {o.power_kw, "--power-kw"};
  } else {
    if (!system || !system->power_w) {
      throw Error(fmt::format("no sourced node power for {} in the catalog; pass --power-kw KW",
                              system ? "system '" + system->id + "'" : "GPU '" + gpu.id + "'"));
    }
    r.it_power_kw = {r.nodes * *system->power_w / 1000,
                     fmt::format("{} × {} power_w {} W (catalog, maximum system power)", r.nodes, system->id,
                                 fmt_number(*system->power_w))};
  }
  r.pue = pick(o.pue, "--pue", inputs.pue, "pue");
  r.usd_per_kwh = pick(o.usd_per_kwh, "--usd-per-kwh", inputs.usd_per_kwh, "electricity");
  if (given(o.ops_usd_per_year)) {
    r.ops_usd_per_year = {o.ops_usd_per_year, "--ops-usd-per-year"};
  } else {
    r.ops_usd_per_year = {r.nodes * inputs.ops_usd_per_node_year.value,
                          from_catalog(inputs.ops_usd_per_node_year, "operations")};
  }
  OnPremInputs in;
  in.capex_usd = r.capex_usd.value;
  in.it_power_kw = r.it_power_kw.value;
  in.pue = r.pue.value;
  in.usd_per_kwh = r.usd_per_kwh.value;
  in.ops_usd_per_year = r.ops_usd_per_year.value;
  in.years = r.years.value;
  r.on_prem = on_prem_tco(in);

  auto add_row = [&](BreakEvenRow row) {
    row.cloud_usd_24x7 = row.usd_per_hour * kHoursPerYear * r.years.value;
    row.break_even_hours_per_day = break_even_hours_per_day(r.on_prem.total_usd, row.usd_per_hour, r.years.value);
    r.rows.push_back(row);
  };
  if (given(o.cloud_usd_per_hour)) {
    add_row({"(given)", "-", "on-demand", "", false, o.cloud_usd_per_hour, 0, 0});
  } else {
    for (const CloudOffer& offer : catalog.offers) {
      if (!offer_selected(catalog, offer, gpu, o.provider, "", o.all)) continue;
      if (offer.pricing != "on-demand" && offer.pricing.rfind("reserved", 0) != 0) continue;
      add_row({offer.provider, offer.instance, offer.pricing, offer.price_date, offer.historical,
               offer.usd_per_gpu_hour * r.gpus, 0, 0});
    }
    std::stable_sort(r.rows.begin(), r.rows.end(),
                     [](const BreakEvenRow& a, const BreakEvenRow& b) { return a.usd_per_hour > b.usd_per_hour; });
    if (r.rows.empty()) r.notes.push_back("no on-demand or reserved offer for this GPU; pass --cloud-usd-per-hour");
  }
  r.notes.push_back(
      "on-prem is a fixed cost (bought, powered and run 24/7 for the period, as Lenovo LP2225 counts it); "
      "the cloud is billed only for the hours used. Below the break-even hours per day, renting is cheaper.");
  if (!given(o.ops_usd_per_year) && inputs.ops_usd_per_node_year.value == 0) {
    r.notes.push_back(
        "operations (staff, support, space) not counted by default, as in Lenovo LP2225: the on-prem "
        "total is a lower bound; pass --ops-usd-per-year");
  }
  return r;
}

// ---------------------------------------------------------------- energy

struct EnergyOpts {
  std::string gpu;
  int gpus = 0;
  double hours = kUnset;
  double days = kUnset;
  double utilization = kUnset;
  double watts_per_gpu = kUnset;
  double pue = kUnset;
  double kg_co2_per_kwh = kUnset;
  double usd_per_kwh = kUnset;
  bool json = false;
};

EnergyReport build_energy(const EnergyOpts& o, const Catalog& catalog) {
  require_count(o.gpus, "--gpus");
  require_positive(o.hours, "--hours");
  require_positive(o.days, "--days");
  if (given(o.hours) == given(o.days)) throw Error("give the duration as --hours H or --days D");
  require_fraction(o.utilization, "--utilization", false);
  require_positive(o.watts_per_gpu, "--watts-per-gpu");
  require_nonneg(o.kg_co2_per_kwh, "--kg-co2-per-kwh");
  require_nonneg(o.usd_per_kwh, "--usd-per-kwh");
  if (given(o.pue) && !(o.pue >= 1 && std::isfinite(o.pue)))
    throw Error(fmt::format("--pue must be at least 1 (got {})", o.pue));

  const TcoInputs& inputs = econ_inputs(catalog);
  const Gpu& gpu = catalog.gpu(o.gpu);
  EnergyReport r;
  r.gpu = gpu.id;
  r.gpus = o.gpus;
  r.hours = given(o.hours) ? o.hours : o.days * 24;
  if (given(o.watts_per_gpu)) {
    r.watts_per_gpu = {o.watts_per_gpu, "--watts-per-gpu"};
  } else if (const System* sys = tco_system_for(catalog, inputs, gpu); sys && sys->power_w) {
    r.watts_per_gpu = {*sys->power_w / sys->gpus,
                       fmt::format("{} power_w {} W / {} GPUs (whole node: CPUs, NICs, fans included)", sys->id,
                                   fmt_number(*sys->power_w), sys->gpus)};
  } else if (gpu.tdp_w > 0) {
    r.watts_per_gpu = {gpu.tdp_w, fmt::format("{} TDP (GPU board only, no host)", gpu.id)};
  } else {
    throw Error(fmt::format("GPU '{}' has no published power in the catalog; pass --watts-per-gpu W", gpu.id));
  }
  r.utilization = given(o.utilization) ? SourcedFigure{o.utilization, "--utilization"}
                                       : SourcedFigure{1.0, "default: full draw (an upper bound)"};
  r.pue = pick(o.pue, "--pue", inputs.pue, "pue");
  r.kg_co2_per_kwh = pick(o.kg_co2_per_kwh, "--kg-co2-per-kwh", inputs.kg_co2_per_kwh, "carbon");
  r.usd_per_kwh = pick(o.usd_per_kwh, "--usd-per-kwh", inputs.usd_per_kwh, "electricity");
  EnergyInputs in;
  in.gpus = r.gpus;
  in.hours = r.hours;
  in.watts_per_gpu = r.watts_per_gpu.value;
  in.utilization = r.utilization.value;
  in.pue = r.pue.value;
  in.kg_co2_per_kwh = r.kg_co2_per_kwh.value;
  in.usd_per_kwh = r.usd_per_kwh.value;
  r.energy = run_energy(in);
  return r;
}

}  // namespace

void setup_cost(CliCommand& cmd, CliContext& ctx) {
  auto o = std::make_shared<CostOpts>();
  cmd.add_option("--gpu", o->gpu, "GPU id or alias")->required();
  cmd.add_option("--gpu-hours", o->gpu_hours, "The run as GPU-hours (billed per GPU-hour)");
  cmd.add_option("--gpus", o->gpus, "GPUs of the run (whole instances are billed)");
  cmd.add_option("--days", o->days, "Wall-clock days");
  cmd.add_option("--hours", o->hours, "Wall-clock hours (without --gpus: one instance of each offer)");
  cmd.add_option("--model", o->model, "Model (zoo id): duration from 6·N·D with --tokens, --gpus, --mfu");
  cmd.add_option("--tokens", o->tokens, "Training tokens (e.g. 100B)");
  cmd.add_option("--mfu", o->mfu, "Model-FLOPs utilisation the run is priced at")->capture_default_str();
  cmd.add_option("--provider", o->provider, "Only this provider (aws, gcp, lambda, ...)");
  cmd.add_option("--instance", o->instance, "Only this instance type");
  cmd.add_flag("--all", o->all, "Include historical (superseded) prices");
  cmd.add_option("--usd-per-hour", o->usd_per_hour,
                 "Price the run's GPUs at this hourly rate instead of the catalog's");
  cmd.add_option("--usd-per-gpu-hour", o->usd_per_gpu_hour, "Price per GPU-hour instead of the catalog's");
  cmd.add_option("--spot-discount", o->spot_discount, "Derive spot rows at on-demand × (1 − F)");
  cmd.add_option("--spot-overhead", o->spot_overhead,
                 "Spot checkpoint/restart overhead as a fraction of wall time (replaces the model)");
  cmd.add_option("--interruptions-per-day", o->interruptions_per_day, "Spot interruptions per instance per day");
  cmd.add_option("--restart-hours", o->restart_hours, "Hours to reacquire and restart after an interruption");
  cmd.add_option("--checkpoint-hours", o->checkpoint_hours,
                 "Checkpoint interval in hours (half is lost per interruption)");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const CostReport r = build_cost(*o, ctx.catalog());
    if (o->json)
      ctx.print_json(cost_json(r));
    else
      ctx.out << cost_text(r);
  });
}

void setup_tco(CliCommand& cmd, CliContext& ctx) {
  auto o = std::make_shared<TcoOpts>();
  cmd.add_option("--gpu", o->gpu, "GPU id or alias")->required();
  cmd.add_option("--gpus", o->gpus, "GPUs to own (rounded up to whole nodes)");
  cmd.add_option("--system", o->system, "Node to buy (default: the catalog's priced node for the GPU)");
  cmd.add_option("--years", o->years, "Period (default 5)");
  cmd.add_option("--capex", o->capex, "Purchase price of the whole cluster, USD");
  cmd.add_option("--power-kw", o->power_kw, "IT power of the whole cluster, kW");
  cmd.add_option("--pue", o->pue, "Power usage effectiveness (facility / IT)");
  cmd.add_option("--usd-per-kwh", o->usd_per_kwh, "Electricity price");
  cmd.add_option("--ops-usd-per-year", o->ops_usd_per_year, "Operations for the whole cluster, USD per year");
  cmd.add_option("--cloud-usd-per-hour", o->cloud_usd_per_hour, "Compare with this cloud rate for the same GPUs");
  cmd.add_option("--provider", o->provider, "Only this provider's offers");
  cmd.add_flag("--all", o->all, "Include historical (superseded) prices");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const TcoReport r = build_tco(*o, ctx.catalog());
    if (o->json)
      ctx.print_json(tco_json(r));
    else
      ctx.out << tco_text(r);
  });
}

void setup_energy(CliCommand& cmd, CliContext& ctx) {
  auto o = std::make_shared<EnergyOpts>();
  cmd.add_option("--gpu", o->gpu, "GPU id or alias")->required();
  cmd.add_option("--gpus", o->gpus, "GPUs")->required();
  cmd.add_option("--hours", o->hours, "Wall-clock hours");
  cmd.add_option("--days", o->days, "Wall-clock days");
  cmd.add_option("--utilization", o->utilization, "Average fraction of full power drawn (default 1)");
  cmd.add_option("--watts-per-gpu", o->watts_per_gpu, "Power per GPU at full load (default: the node's share, or TDP)");
  cmd.add_option("--pue", o->pue, "Power usage effectiveness");
  cmd.add_option("--kg-co2-per-kwh", o->kg_co2_per_kwh, "Grid carbon intensity");
  cmd.add_option("--usd-per-kwh", o->usd_per_kwh, "Electricity price");
  cmd.add_flag("--json", o->json, "Print one JSON object");
  cmd.callback([o, &ctx] {
    const EnergyReport r = build_energy(*o, ctx.catalog());
    if (o->json)
      ctx.print_json(energy_json(r));
    else
      ctx.out << energy_text(r);
  });
}

}  // namespace gpuplan
