#include "plan/placement.h"

#include <algorithm>

namespace gpuplan {

namespace {

// place_group's body, inline in place_plan (nine groups per plan evaluated).
[[gnu::always_inline]] inline GroupPlacement place(int size, int stride, int domain_gpus) {
  GroupPlacement g;
  g.size = std::max(1, size);
  g.stride = std::max(1, stride);
  const int d = std::max(1, domain_gpus);
  if (g.size == 1) return g;
  if (g.stride >= d) {
    // Every member in its own domain (DP under node-wide TP).
    g.gpus_per_domain = 1;
    g.domains = g.size;
    g.domain_stride = g.stride / d;
  } else if (g.stride * g.size <= d) {
    g.gpus_per_domain = g.size;
  } else {
    g.gpus_per_domain = std::max(1, d / g.stride);
    g.domains = (g.size + g.gpus_per_domain - 1) / g.gpus_per_domain;
  }
  return g;
}

}  // namespace

GroupPlacement place_group(int size, int stride, int domain_gpus) { return place(size, stride, domain_gpus); }

Placement place_plan(const Plan& p, int domain_gpus) {
  Placement pl;
  const int tc = p.tp * p.cp;
  pl.tp = place(p.tp, 1, domain_gpus);
  pl.cp = place(p.cp, p.tp, domain_gpus);
  pl.dp = place(p.dp, tc, domain_gpus);
  pl.pp = place(p.pp, tc * p.dp, domain_gpus);
  pl.ep = place(p.ep, 1, domain_gpus);
  // Without expert parallelism no division (the same quotient: x / 1 = x).
  const int ep = std::max(1, p.ep);
  pl.expert_dp = place(std::max(1, ep == 1 ? tc * p.dp : tc * p.dp / ep), p.ep, domain_gpus);
  const int shard = std::min(p.shard_group(), p.dp);
  // place() of the same arguments is the same group: without context parallelism the gradient
  // group is the DP group (dp · 1 ranks, tp · 1 apart), and without HSDP the shard group is the
  // gradient group; copied rather than placed again (each placement is a few integer divisions).
  pl.grad = p.cp == 1 ? pl.dp : place(p.dp * p.cp, p.tp, domain_gpus);
  pl.shard = shard == p.dp ? pl.grad : place(shard * p.cp, p.tp, domain_gpus);
  pl.replica = place(std::max(1, p.dp / std::max(1, shard)), tc * shard, domain_gpus);
  return pl;
}

namespace {

// The level a group reaches: the innermost whose unit holds the ranks it spans.
std::string placed_group_level(const CollectiveTopology& t, const GroupPlacement& g) {
  if (g.size <= 1) return "-";
  const double span = static_cast<double>(g.stride) * (g.size - 1) + 1;
  for (int i = 0; i < t.level_count; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    if (t.levels[idx].gpus_per_unit <= 0 || span <= t.levels[idx].gpus_per_unit) {
      return t.level_names[idx].empty() ? (i == 0 ? "scale-up domain" : "network") : t.level_names[idx];
    }
  }
  return t.level_count > 0 && !t.level_names[static_cast<std::size_t>(t.level_count - 1)].empty()
             ? t.level_names[static_cast<std::size_t>(t.level_count - 1)]
             : "network";
}

}  // namespace

std::vector<PlacedGroup> placed_groups(const Plan& plan, int domain_gpus, const CollectiveTopology& topology) {
  const Placement pl = place_plan(plan, domain_gpus);
  std::vector<PlacedGroup> rows = {{"TP", pl.tp, ""}, {"CP", pl.cp, ""}, {"EP", pl.ep, ""}, {"DP (gradients)", pl.grad, ""},
                                   {"PP", pl.pp, ""}};
  for (PlacedGroup& row : rows) row.level = placed_group_level(topology, row.group);
  return rows;
}

CollectiveRequest collective_request(CollectiveOp op, double bytes, const GroupPlacement& g) {
  CollectiveRequest r;
  r.op = op;
  r.bytes = bytes;
  r.gpus_per_domain = g.gpus_per_domain;
  r.domains = g.domains;
  r.domain_stride = g.domain_stride;
  return r;
}

}  // namespace gpuplan
