#include "econ/cost_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.h"
#include "core/units.h"
#include "econ/econ_fields.h"
#include "catalog/resolve_model.h"
#include "econ/offers.h"
#include "search/search_request.h"
#include "workload/params.h"

namespace gpuplan {
namespace {

void check_request(const CostRequest& o) {
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
  require_count(o.gpus, "--gpus");
  const int modes = int(o.gpu_hours.has_value()) + int(!o.model.empty()) + int(o.days || o.hours);
  if (modes != 1) {
    throw Error(
        "give the run one way: --gpu-hours H, or --gpus N with --days D or --hours H, or --model M "
        "--tokens T --gpus N");
  }
  if (o.days && o.hours) throw Error("give --days or --hours, not both");
  if (o.usd_per_hour && o.usd_per_gpu_hour) throw Error("give --usd-per-hour or --usd-per-gpu-hour, not both");
  if (!o.model.empty() && o.tokens.empty()) throw Error("--model needs --tokens T (e.g. 100B)");
  if (!o.model.empty() && !o.gpus) throw Error("--model needs --gpus N");
  if (o.model.empty() && !o.tokens.empty()) throw Error(fmt::format("--tokens {}: needs --model M", o.tokens));
  if (o.rule_of_thumb && o.model.empty()) throw Error("--rule-of-thumb prices a --model M --tokens T run; add them");
  if (o.model.empty() && (o.global_batch || o.seq_len || !o.system.empty())) {
    throw Error("--global-batch, --seq-len and --system shape the plan of a --model M --tokens T run; add them");
  }
  if (o.rule_of_thumb && (o.global_batch || o.seq_len || !o.system.empty())) {
    throw Error("--rule-of-thumb uses 6·N·D at --mfu, not a plan: drop --global-batch, --seq-len and --system");
  }
  if (!o.rule_of_thumb && o.mfu != 0.4) {
    throw Error(fmt::format("--mfu {}: the duration comes from the evaluator's best plan (its own MFU); add "
                            "--rule-of-thumb to price 6·N·D at a given MFU",
                            o.mfu));
  }
  require_count(o.global_batch, "--global-batch");
  require_count(o.seq_len, "--seq-len");
  if (o.gpu_hours && o.gpus)
    throw Error("--gpu-hours already counts the GPUs; drop --gpus (or use --gpus N --hours H)");
}

// The evaluator's best plan for the run (the search `gpuplan search` runs, fastest first): the
// duration is tokens / its throughput. The 6·N·D figures at 100% and 50% MFU stay beside it.
void duration_from_search(const Catalog& catalog, const Gpu& gpu, const CostRequest& o, ModelDuration& m) {
  SearchRequest s;
  s.model = o.model;
  s.gpu = gpu.id;
  s.system = o.system;
  s.gpus = *o.gpus;
  s.seq_len = o.seq_len;
  s.top = 1;
  if (o.global_batch) {
    s.global_batch = *o.global_batch;
  } else {
    std::shared_ptr<ModelSpec> owned;
    const ModelSpec& spec = resolve_model(catalog, o.model, owned);
    const int seq = o.seq_len.value_or(static_cast<int>(spec.max_seq_len));
    const int per_batch = static_cast<int>(std::ceil(kDefaultBatchTokens / std::max(1, seq)));
    s.global_batch = (per_batch + *o.gpus - 1) / *o.gpus * *o.gpus;
  }
  auto answer = std::make_shared<SearchAnswer>(answer_search(catalog, s));
  const SearchAnswer& a = *answer;
  m.method = "search";
  m.search = answer;
  m.global_batch = s.global_batch;
  if (a.result.top.empty()) {
    const std::string why = a.result.closest.empty() ? std::string("no plan in the space")
                                                     : a.result.closest.front().estimate.reason_text();
    throw Error(fmt::format("--model {} on --gpus {} × {} (global batch {}): no plan fits ({}); run `gpuplan "
                            "search` for the closest plans, give more --gpus or another --global-batch, or add "
                            "--rule-of-thumb",
                            o.model, *o.gpus, gpu.id, s.global_batch, why));
  }
  const Candidate& best = a.result.top.front();
  m.seq_len = best.plan.seq_len > 0 ? best.plan.seq_len : static_cast<int>(a.setup.ctx.model->max_seq_len);
  m.step_time_s = best.estimate.step_time_s;
  m.tokens_per_s = best.estimate.tokens_per_s;
  m.mfu = best.estimate.mfu;
  m.hours_at_mfu = m.tokens / m.tokens_per_s / 3600;
}

// Duration from 6·N·D (Kaplan et al. 2020) at the request's MFU (--rule-of-thumb) or the best
// plan's, with 100% and 50% beside it.
ModelDuration model_duration(const Catalog& catalog, const Gpu& gpu, const CostRequest& o) {
  std::shared_ptr<ModelSpec> owned;
  const ModelSpec& model = resolve_model(catalog, o.model, owned);
  const double peak = gpu.dense(Precision::bf16);
  if (!(peak > 0)) throw Error(fmt::format("--gpu {}: no dense BF16 peak in the catalog; pick another --gpu", gpu.id));
  ModelDuration m;
  m.model = model.id;
  m.params = count_params(model).active;
  m.tokens = parse_count(o.tokens, "--tokens");
  m.flops = training_flops_6nd(m.params, m.tokens);
  m.peak_flops_per_s = peak;
  m.hours_at_full_mfu = training_seconds(m.flops, *o.gpus, peak, 1.0) / 3600;
  m.hours_at_half_mfu = training_seconds(m.flops, *o.gpus, peak, 0.5) / 3600;
  if (o.rule_of_thumb) {
    m.method = "6ND";
    m.mfu = o.mfu;
    m.hours_at_mfu = training_seconds(m.flops, *o.gpus, peak, o.mfu) / 3600;
  } else {
    duration_from_search(catalog, gpu, o, m);
  }
  return m;
}

CostRow offer_row(const CloudOffer& offer) {
  CostRow row;
  row.provider = offer.provider;
  row.instance = offer.instance;
  row.pricing = offer.pricing;
  row.price_date = offer.price_date;
  row.price_date_estimated = offer.price_date_estimated;
  row.historical = offer.historical;
  row.gpus_per_instance = offer.gpu_count;
  row.usd_per_gpu_hour = offer.usd_per_gpu_hour;
  const auto cut = offer.provenance.source.find(" ; ");
  row.source = cut == std::string::npos ? offer.provenance.source : offer.provenance.source.substr(0, cut);
  return row;
}

}  // namespace

CostAnswer answer_cost(const Catalog& catalog, const CostRequest& o) {
  check_field_numbers(o, cost_fields(), FieldNumberRule::kFiniteNumbers);  // NaN, inf (core/field_spec.h)
  check_request(o);
  check_provider(catalog, o.provider, "--provider");

  const Gpu& gpu = catalog.gpu(o.gpu);
  CostAnswer r;
  r.gpu = gpu.id;
  r.gpus = o.gpus.value_or(0);
  if (!o.model.empty()) {
    r.has_model = true;
    r.model = model_duration(catalog, gpu, o);
    r.wall_hours = r.model.hours_at_mfu;
  } else if (o.gpu_hours) {
    r.gpu_hours = *o.gpu_hours;
  } else {
    r.wall_hours = o.days ? *o.days * 24 : *o.hours;
  }
  if (r.wall_hours > 0 && r.gpus > 0) r.gpu_hours = r.wall_hours * r.gpus;

  const TcoInputs& inputs = econ_inputs(catalog);
  r.spot.interruptions_per_instance_per_day =
      o.interruptions_per_day.value_or(inputs.spot_interruptions_per_instance_per_day.value);
  r.spot.restart_h = o.restart_hours.value_or(inputs.spot_restart_h);
  r.spot.checkpoint_interval_h = o.checkpoint_hours.value_or(inputs.spot_checkpoint_interval_h);
  r.spot_overhead_fixed = o.spot_overhead.has_value();
  r.spot_overhead = o.spot_overhead.value_or(0);
  const bool spot_overridden = o.interruptions_per_day || o.restart_hours || o.checkpoint_hours;
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

  if (o.usd_per_hour || o.usd_per_gpu_hour) {
    CostRow row;
    row.provider = "(given)";
    row.instance = "-";
    row.pricing = "on-demand";
    if (o.usd_per_hour) {
      if (r.wall_hours <= 0)
        throw Error(
            fmt::format("--usd-per-hour {}: needs a duration (--days/--hours); with --gpu-hours use "
                        "--usd-per-gpu-hour",
                        *o.usd_per_hour));
      const int run_gpus = r.gpus > 0 ? r.gpus : 1;
      row.gpus_per_instance = run_gpus;  // the given price covers all the run's GPUs
      row.usd_per_gpu_hour = *o.usd_per_hour / run_gpus;
      row.source =
          fmt::format("--usd-per-hour {} for all {} GPU{}", *o.usd_per_hour, run_gpus, run_gpus == 1 ? "" : "s");
    } else {
      row.gpus_per_instance = 0;
      row.usd_per_gpu_hour = *o.usd_per_gpu_hour;
      row.source = "--usd-per-gpu-hour";
    }
    row.cost = price(row.usd_per_gpu_hour, row.gpus_per_instance, false);
    r.rows.push_back(row);
  } else {
    OfferFilter filter;
    filter.gpu = &gpu;
    if (!o.provider.empty()) filter.providers = {o.provider};
    filter.instance = o.instance;
    filter.include_historical = o.all;
    for (const CloudOffer* offer : select_offers(catalog, filter)) {
      CostRow row = offer_row(*offer);
      row.cost = price(row.usd_per_gpu_hour, row.gpus_per_instance, offer->pricing == "spot");
      r.rows.push_back(row);
      if (offer->gpu_component_only) {
        r.notes.push_back(
            fmt::format("{} {}: the price leaves out the separately billed VM part", offer->provider, offer->instance));
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
  if (o.spot_discount) {
    // A spot row derived from each on-demand row: price × (1 − discount), plus the restart overhead.
    const std::size_t n = r.rows.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (r.rows[i].pricing != "on-demand") continue;
      CostRow spot = r.rows[i];
      spot.pricing = "spot (derived)";
      spot.usd_per_gpu_hour *= 1.0 - *o.spot_discount;
      spot.source = fmt::format("on-demand × (1 − --spot-discount {})", *o.spot_discount);
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

}  // namespace gpuplan
