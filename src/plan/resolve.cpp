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

struct Search {
  const TrainContext& ctx;
  Resolved best;
  bool have_fit = false;
  bool have_valid = false;
  double best_memory = 0;

  void consider(const Plan& p) {
    ++best.tried;
    const Estimate e = evaluate(ctx, p);
    if (e.feasible()) {
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

}  // namespace

Resolved resolve_fastest(const TrainContext& ctx, const Plan& base, const PlanUnknowns& u, int gpus) {
  Search s{ctx, {}};
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
              for (MoeOverlap o : overlaps) {
                p.moe_overlap = o;
                s.consider(p);
              }
            }
          }
        }
      }
    }
  }
  return s.best;
}

}  // namespace gpuplan
