#include "plan/resolve.h"

#include <algorithm>
#include <array>
#include <vector>

namespace gpuplan {
namespace {

std::vector<int> powers_of_two_dividing(int n, int cap) {
  std::vector<int> out;
  for (int v = 1; v <= cap && v <= n; v *= 2) {
    if (n % v == 0) out.push_back(v);
  }
  return out;
}

struct Fitting {
  Plan plan;
  double step_s = 0;
};

struct Search {
  const TrainContext& ctx;
  Resolved best;
  bool have_fit = false;
  bool have_valid = false;
  double best_memory = 0;
  std::vector<Fitting> fitting{};  // every candidate that fits, in enumeration order

  void consider(const Plan& p) {
    ++best.tried;
    const Estimate e = evaluate(ctx, p);
    if (e.feasible()) {
      fitting.push_back({p, e.step_time_s});
      if (!have_fit || e.step_time_s < best.estimate.step_time_s) {
        best.plan = p;
        best.estimate = e;
        have_fit = true;
      }
    } else if (!have_fit && e.valid()) {
      if (!have_valid || e.memory.total_bytes < best_memory) {
        best.plan = p;
        best.estimate = e;
        best_memory = e.memory.total_bytes;
        have_valid = true;
      }
    } else if (!have_fit && !have_valid && best.tried == 1) {
      best.plan = p;
      best.estimate = e;
    }
  }
};

// Activation offload depths tried with an unknown recompute setting: eighths of the model's
// layers, below all of them, without a pipeline (activation_offload.h). Only where the GPU has
// its own host link (NVLink-C2C on Grace superchips): the Megatron-Bridge presets that offload
// are Grace superchip ones (Llama 3 70B on GB200/GB300: cpu_offloading_num_layers 20 to 40 of
// 80 layers, scripts/performance/configs/llama/llama3_workload_base_configs.py) but for B200
// FP8 (5 layers), which a PCIe-host rule would also offer to every x86 row.
std::vector<int> offload_depths(const TrainContext& ctx, const Plan& p, bool recompute_unknown) {
  std::vector<int> out{p.offload_activation_layers};
  // Megatron-Core offloads only without a pipeline (TransformerConfig.__post_init__).
  if (!recompute_unknown || ctx.gpu == nullptr || ctx.gpu->host_link.empty() || p.offload_activation_layers > 0 ||
      p.pp > 1) {
    return out;
  }
  const std::int64_t layers = ctx.model->layers;
  for (int eighth = 1; eighth < 8; ++eighth) {
    const int n = static_cast<int>(layers * eighth / 8);
    if (n > out.back() && n < layers) out.push_back(n);
  }
  return out;
}

// Every candidate over the unknown fields, fed to `s`.
void enumerate(Search& s, const TrainContext& ctx, const Plan& base, const PlanUnknowns& u, int gpus) {
  const ModelSpec& m = *ctx.model;
  std::vector<std::array<int, 3>> layouts;  // tp, pp, dp
  if (u.layout) {
    const int domain = std::max(1, ctx.domain_gpus);
    for (int tp : powers_of_two_dividing(static_cast<int>(m.heads), domain)) {
      for (int pp = 1; pp <= 64 && pp <= m.layers; pp *= 2) {
        const int mp = tp * pp * base.cp;
        if (gpus % mp != 0) continue;
        layouts.push_back({tp, pp, gpus / mp});
      }
    }
  } else {
    layouts.push_back({base.tp, base.pp, base.dp});
  }
  const std::vector<bool> sps = u.sp ? std::vector<bool>{false, true} : std::vector<bool>{base.sp};
  const std::vector<int> zeros = u.zero ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{base.zero};
  const std::vector<Recompute> recomputes =
      u.recompute ? std::vector<Recompute>{Recompute::none, Recompute::selective, Recompute::full}
                  : std::vector<Recompute>{base.recompute};
  const std::vector<MoeOverlap> overlaps = u.moe_overlap
                                               ? std::vector<MoeOverlap>{MoeOverlap::none, MoeOverlap::one_f_one_b}
                                               : std::vector<MoeOverlap>{base.moe_overlap};
  for (const auto& [tp, pp, dp] : layouts) {
    Plan p = base;
    p.tp = tp;
    p.pp = pp;
    p.dp = dp;
    if (u.layout && pp == 1) p.vp = 1;
    std::vector<int> micro_batches{base.micro_batch};
    if (u.micro_batch) {
      const int per_replica = base.global_batch > 0 ? base.global_batch / dp : 64;
      micro_batches = base.global_batch > 0 && base.global_batch % dp != 0 ? std::vector<int>{1}
                                                                           : powers_of_two_dividing(per_replica, 64);
      if (micro_batches.empty()) micro_batches = {1};
    }
    // Interleaving depths: powers of two up to one layer per virtual stage (evaluate() refuses
    // the ones the layers or micro-batches do not divide).
    std::vector<int> vps{u.layout && pp == 1 ? 1 : base.vp};
    if (u.vp && pp > 1) {
      vps.clear();
      for (int vp = 1; vp <= 64 && vp * pp <= m.layers + 2; vp *= 2) vps.push_back(vp);
    }
    for (int mb : micro_batches) {
      p.micro_batch = mb;
      for (int vp : vps) {
        p.vp = vp;
        for (bool sp : sps) {
          if (sp && tp == 1) continue;
          p.sp = sp;
          for (int zero : zeros) {
            p.zero = zero;
            for (Recompute r : recomputes) {
              p.recompute = r;
              // Offloading replaces recompute, so it is tried only without one.
              const std::vector<int> depths = r == Recompute::none ? offload_depths(ctx, p, u.recompute)
                                                                   : std::vector<int>{base.offload_activation_layers};
              for (int n : depths) {
                p.offload_activation_layers = n;
                for (MoeOverlap o : overlaps) {
                  p.moe_overlap = o;
                  s.consider(p);
                }
              }
              p.offload_activation_layers = base.offload_activation_layers;
            }
          }
        }
      }
    }
  }
}

// The spread over the candidates that differ from the chosen plan only in the settings a
// framework has defaults for (sequence parallelism, recompute, MoE overlap): what not knowing
// them costs. Layout, micro-batch, interleaving and ZeRO stay at the chosen (tuned) values; the
// spread over those would be dominated by settings no one runs (a 2,048-way DP of micro-batch 1).
void set_spread(Resolved& r, const std::vector<Fitting>& fitting) {
  for (const Fitting& f : fitting) {
    const Plan& p = f.plan;
    const Plan& c = r.plan;
    if (p.tp != c.tp || p.pp != c.pp || p.dp != c.dp || p.vp != c.vp || p.micro_batch != c.micro_batch ||
        p.zero != c.zero) {
      continue;
    }
    r.fastest_step_s = r.fastest_step_s > 0 ? std::min(r.fastest_step_s, f.step_s) : f.step_s;
    r.slowest_step_s = std::max(r.slowest_step_s, f.step_s);
  }
}

// How much a setting gives up to fit memory: nothing, activations offloaded to the host (no
// compute repeated), selective, full recompute.
int recompute_rank(Recompute r) {
  switch (r) {
    case Recompute::none: return 0;
    case Recompute::selective: return 2;
    case Recompute::full: return 3;
  }
  return 0;
}
int recompute_rank(const Plan& p) {
  return p.recompute == Recompute::none && p.offload_activation_layers > 0 ? 1 : recompute_rank(p.recompute);
}

}  // namespace

Resolved resolve_fastest(const TrainContext& ctx, const Plan& base, const PlanUnknowns& u, int gpus) {
  Search s{ctx, {}};
  enumerate(s, ctx, base, u, gpus);
  if (s.have_fit) set_spread(s.best, s.fitting);
  return s.best;
}

Resolved resolve_with_defaults(const TrainContext& ctx, const Plan& base, const PlanUnknowns& u, int gpus,
                               const SettingDefaults& defaults) {
  Search s{ctx, {}};
  enumerate(s, ctx, base, u, gpus);
  Resolved out = s.best;
  if (s.fitting.empty()) return out;
  // Narrow the fitting candidates field by field; a default no fitting candidate has is dropped.
  std::vector<Fitting> pool = s.fitting;
  auto keep = [&](auto&& matches) {
    std::vector<Fitting> kept;
    for (const Fitting& f : pool) {
      if (matches(f.plan)) kept.push_back(f);
    }
    if (!kept.empty()) pool = std::move(kept);
  };
  if (u.sp && defaults.sp_with_tp) keep([&](const Plan& p) { return p.sp == (*defaults.sp_with_tp && p.tp > 1); });
  if (u.moe_overlap && defaults.moe_overlap) keep([&](const Plan& p) { return p.moe_overlap == *defaults.moe_overlap; });
  if (u.recompute && defaults.recompute) {
    // The lightest recompute at or above the default that some candidate fits with.
    int lightest = 4;
    for (const Fitting& f : pool) {
      const int rank = recompute_rank(f.plan);
      if (rank >= recompute_rank(*defaults.recompute)) lightest = std::min(lightest, rank);
    }
    keep([&](const Plan& p) { return recompute_rank(p) == lightest; });
  }
  const auto chosen = std::min_element(pool.begin(), pool.end(),
                                       [](const Fitting& a, const Fitting& b) { return a.step_s < b.step_s; });
  out.plan = chosen->plan;
  out.estimate = evaluate(ctx, chosen->plan);
  set_spread(out, s.fitting);
  return out;
}

}  // namespace gpuplan
