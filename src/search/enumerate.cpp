// Enumeration of the training plan space. Each rule mirrors a structural check of the
// evaluator (plan/evaluate.cpp, check_structure), so every plan produced is valid there; the
// only extra restriction is VP, limited to what Megatron accepts (docs/model/search.md).
#include "search/enumerate.h"

namespace gpuplan {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

namespace {

bool tp_ok(const ModelSpec& m, int tp) {
  if (m.heads % tp != 0) return false;
  if (!m.mla && m.kv_heads > 0 && m.kv_heads % tp != 0 && tp % m.kv_heads != 0) return false;
  return true;
}

}  // namespace

std::vector<Layout> enumerate_layouts(const ModelSpec& m, const SearchSpace& s) {
  std::vector<Layout> out;
  if (s.gpus < 1 || s.global_batch < 1 || s.seq_len < 1) return out;
  for (int tp : divisors(s.gpus)) {
    if (!tp_ok(m, tp)) continue;
    for (int cp : divisors(s.gpus / tp)) {
      if (s.seq_len % cp != 0) continue;
      for (int pp : divisors(s.gpus / (tp * cp))) {
        if (pp > m.layers) continue;
        const int dp = s.gpus / (tp * cp * pp);
        if (s.global_batch % dp != 0) continue;
        // Interleaving needs pp > 1 and an equal number of layers per virtual stage.
        std::vector<int> vps{1};
        if (pp > 1) {
          for (int vp = 2; static_cast<long long>(pp) * vp <= m.layers; ++vp) {
            if (m.layers % (static_cast<long long>(pp) * vp) == 0) vps.push_back(vp);
          }
        }
        std::vector<int> eps{1};
        if (m.is_moe()) {
          eps.clear();
          for (int ep : divisors(tp * cp * dp)) {
            if (m.moe.experts % ep == 0) eps.push_back(ep);
          }
        }
        for (int vp : vps) {
          for (int ep : eps) out.push_back(Layout{tp, pp, vp, cp, dp, ep});
        }
      }
    }
  }
  return out;
}

std::vector<bool> sp_choices(const Layout& l) {
  return l.tp > 1 ? std::vector<bool>{true, false} : std::vector<bool>{false};
}

std::vector<ShardChoice> shard_choices(const Layout& l) {
  std::vector<ShardChoice> out{{0, 0}};
  const std::vector<int> shards = divisors(l.dp);
  for (int zero = 1; zero <= 3; ++zero) {
    for (int shard : shards) out.push_back({zero, shard == l.dp ? 0 : shard});
  }
  return out;
}

std::vector<int> micro_batch_choices(const Layout& l, const SearchSpace& s) {
  std::vector<int> out = divisors(s.global_batch / l.dp);
  // The interleaved schedule needs the micro-batches per step in whole rounds of pp (the
  // same rule as evaluate()'s structural check).
  if (l.vp > 1) {
    std::erase_if(out, [&](int mb) { return (s.global_batch / l.dp / mb) % l.pp != 0; });
  }
  return out;
}

Plan make_plan(const Layout& l, const SearchSpace& s, bool sp, ShardChoice shard, int micro_batch,
               Recompute recompute) {
  Plan p;
  p.tp = l.tp;
  p.pp = l.pp;
  p.vp = l.vp;
  p.dp = l.dp;
  p.cp = l.cp;
  p.ep = l.ep;
  p.sp = sp;
  p.zero = shard.zero;
  p.dp_shard = shard.dp_shard;
  p.micro_batch = micro_batch;
  p.global_batch = s.global_batch;
  p.seq_len = s.seq_len;
  p.recompute = recompute;
  p.precision = s.precision;
  p.tp_comm_overlap = s.tp_comm_overlap;
  p.optimizer_state_bits = s.optimizer_state_bits;
  p.offload_optimizer = s.offload_optimizer;
  p.eager_elementwise = s.eager_elementwise;
  p.scaling = s.scaling;
  p.low_precision_act_cache = s.low_precision_act_cache;
  p.fp8_params = s.fp8_params;
  return p;
}

std::vector<Plan> enumerate_plans(const ModelSpec& m, const SearchSpace& s) {
  std::vector<Plan> out;
  for (const Layout& l : enumerate_layouts(m, s)) {
    for (bool sp : sp_choices(l)) {
      for (int mb : micro_batch_choices(l, s)) {
        for (ShardChoice z : shard_choices(l)) {
          for (Recompute r : kRecomputeChoices) out.push_back(make_plan(l, s, sp, z, mb, r));
        }
      }
    }
  }
  return out;
}

long long count_plans(const ModelSpec& m, const SearchSpace& s) {
  long long n = 0;
  for (const Layout& l : enumerate_layouts(m, s)) {
    n += static_cast<long long>(sp_choices(l).size()) * static_cast<long long>(micro_batch_choices(l, s).size()) *
         static_cast<long long>(shard_choices(l).size()) * 3;
  }
  return n;
}

}  // namespace gpuplan
