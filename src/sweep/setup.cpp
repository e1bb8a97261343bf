#include "sweep/setup.h"

#include <fmt/format.h>

#include "core/error.h"
#include "catalog/system_choice.h"

namespace gpuplan {
namespace {

[[noreturn]] void fail(const SweepSpec& spec, const std::string& key, const std::string& message) {
  throw Error(fmt::format("{}: '{}': {}", spec.file, key, message));
}

std::size_t context_slot(std::size_t model_idx, std::size_t gpu_idx, std::size_t gpu_count, bool multi) {
  return (model_idx * gpu_count + gpu_idx) * 2 + (multi ? 1 : 0);
}

}  // namespace

const TrainContext& SweepSetup::context(const SweepCell& cell) const {
  const std::size_t slot = context_slot(static_cast<std::size_t>(cell.model_idx),
                                        static_cast<std::size_t>(cell.gpu_idx), gpus.size(), cell.gpus > 1);
  GP_ASSERT(slot < contexts.size() && contexts[slot].model != nullptr, "every cell's context is built by the setup");
  return contexts[slot];
}

SearchSpace SweepSetup::space(const SweepCell& cell) const {
  SearchSpace s;
  s.gpus = cell.gpus;
  s.global_batch = spec.global_batch;
  s.seq_len = spec.seq_len;
  s.precision = spec.precision;
  return s;
}

SearchOptions SweepSetup::options(const SweepCell& cell, int threads) const {
  SearchOptions o;
  o.top_k = spec.top_k;
  o.threads = threads;
  o.prune = spec.search.prune;
  o.time_limit_s = spec.search.time_limit_s;
  o.objective = spec.objective;
  o.usd_per_gpu_hour = gpus[static_cast<std::size_t>(cell.gpu_idx)].usd_per_gpu_hour;
  return o;
}

SweepSetup make_sweep_setup(const Catalog& catalog, const SweepSpec& spec, std::vector<const ModelSpec*> models) {
  GP_ASSERT(models.size() == spec.models.size(), "the caller resolves every model of the spec");
  SweepSetup s;
  s.spec = spec;
  s.models = std::move(models);
  for (std::size_t i = 0; i < s.models.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (s.models[j]->id == s.models[i]->id) {
        fail(spec, fmt::format("models[{}]", i),
             fmt::format("'{}' is model '{}' again (as models[{}]); list each model once", spec.models[i],
                         s.models[i]->id, j));
      }
    }
  }
  bool any_single = false;
  bool any_multi = false;
  for (int n : spec.gpu_counts) (n > 1 ? any_multi : any_single) = true;

  for (std::size_t i = 0; i < spec.gpus.size(); ++i) {
    const std::string key = fmt::format("gpus[{}]", i);
    SweepGpu g;
    try {
      ClusterQuery query;  // the spec names GPUs only; systems are the catalog's for them (below)
      query.gpu = spec.gpus[i];
      g.gpu = choose_cluster(catalog, query).gpu;  // "unknown GPU ...; did you mean ..."
    } catch (const Error& e) {
      fail(spec, key, e.what());
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (s.gpus[j].gpu == g.gpu) {
        fail(spec, key,
             fmt::format("'{}' is GPU '{}' again (as gpus[{}]); list each GPU once", spec.gpus[i], g.gpu->id, j));
      }
    }
    if (any_multi) {
      g.system = default_system_for(catalog, *g.gpu);
      if (!g.system) {
        fail(spec, key,
             fmt::format("no system in the catalog is built from {}; GPU counts above 1 need one", g.gpu->id));
      }
    }
    if (spec.search.usd_per_gpu_hour > 0) {
      g.usd_per_gpu_hour = spec.search.usd_per_gpu_hour;
      g.price_source = "search.usd_per_gpu_hour";
    } else if (const auto price = cheapest_on_demand(catalog, *g.gpu)) {
      g.usd_per_gpu_hour = price->usd_per_gpu_hour;
      g.price_source = price->source;
    } else if (spec.objective == Objective::cost) {
      fail(spec, key,
           fmt::format("no current on-demand offer for {} in the catalog for objective 'cost'; set "
                       "search.usd_per_gpu_hour",
                       g.gpu->id));
    }
    s.gpus.push_back(g);
  }

  s.contexts.resize(s.models.size() * s.gpus.size() * 2);
  for (std::size_t m = 0; m < s.models.size(); ++m) {
    for (std::size_t g = 0; g < s.gpus.size(); ++g) {
      for (const bool multi : {false, true}) {
        if (!(multi ? any_multi : any_single)) continue;
        try {
          s.contexts[context_slot(m, g, s.gpus.size(), multi)] =
              make_train_context(catalog, *s.models[m], *s.gpus[g].gpu, multi ? s.gpus[g].system : nullptr, nullptr);
        } catch (const Error& e) {
          fail(spec, fmt::format("gpus[{}]", g),
               fmt::format("{} with model {}: {}", s.gpus[g].gpu->id, s.models[m]->id, e.what()));
        }
      }
    }
  }

  for (std::size_t m = 0; m < s.models.size(); ++m) {
    for (std::size_t g = 0; g < s.gpus.size(); ++g) {
      for (int n : spec.gpu_counts) {
        SweepCell c;
        c.index = static_cast<int>(s.cells.size());
        c.model_idx = static_cast<int>(m);
        c.gpu_idx = static_cast<int>(g);
        c.gpus = n;
        c.plans_in_space = count_plans(*s.models[m], s.space(c));
        s.cells.push_back(c);
      }
    }
  }
  return s;
}

}  // namespace gpuplan
