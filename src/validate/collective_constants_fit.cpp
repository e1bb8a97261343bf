#include "validate/collective_constants_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "core/strings.h"
#include "cost/collective.h"
#include "cost/collective_p2p_channels.h"

namespace gpuplan {
namespace {

enum class KnobKind {
  simple_step,
  alltoall,
  p2p,
  p2p_channel,
  nvls,
  nvls_hop,
  hop_scale,
  bw_efficiency,
  transport_base
};

// One fitted constant: how it is named and shown, where it sits in the parameter set, the
// range the grid searches and its prior (all in the unit shown).
struct Knob {
  KnobKind kind = KnobKind::simple_step;
  std::string link;  // hop_scale / bw_efficiency: the [[link]] entry; transport_base: the [[transport]] id
  std::string name;
  std::string unit;
  double lo = 0;
  double hi = 1;
  double prior = 0;
};

CollectiveLinkParams* find_entry(CollectiveParams& p, const std::string& link) {
  for (auto& l : p.links) {
    if (normalize_name(l.link) == normalize_name(link)) return &l;
  }
  return nullptr;
}
const CollectiveLinkParams* find_entry(const CollectiveParams& p, const std::string& link) {
  return find_entry(const_cast<CollectiveParams&>(p), link);
}
CollectiveTransportParams* find_transport_entry(CollectiveParams& p, const std::string& id) {
  for (auto& t : p.transports) {
    if (normalize_name(t.id) == normalize_name(id)) return &t;
  }
  return nullptr;
}

void set_knob(CollectiveParams& p, const Knob& k, double v) {
  switch (k.kind) {
    case KnobKind::simple_step:
      p.simple_step_bytes = v * 1e6;
      break;
    case KnobKind::alltoall:
      p.alltoall_bw_fraction = v;
      break;
    case KnobKind::p2p:
      p.p2p_latency_s = v * 1e-6;
      break;
    case KnobKind::p2p_channel:
      p.p2p_channel_bytes_per_clock = v;
      break;
    case KnobKind::nvls:
      p.nvls_latency_s = v * 1e-6;
      break;
    case KnobKind::nvls_hop:
      p.nvls_hop_latency_s = v * 1e-6;
      break;
    case KnobKind::hop_scale: {
      CollectiveLinkParams* l = find_entry(p, k.link);
      for (int i = 0; i < kProtocolCount; ++i) {
        l->ring_hop_latency_s[i] = p.priors.nccl_nvlink_ring_hop_s[i] * v;
        l->tree_hop_latency_s[i] = p.priors.nccl_nvlink_tree_hop_s[i] * v;
      }
      break;
    }
    case KnobKind::bw_efficiency:
      find_entry(p, k.link)->bw_efficiency = v;
      break;
    case KnobKind::transport_base:
      find_transport_entry(p, k.link)->base_latency_s = v * 1e-6;
      break;
  }
}

// The value a parameter set holds (for the "shipped" column).
double get_knob(const CollectiveParams& p, const Knob& k) {
  switch (k.kind) {
    case KnobKind::simple_step:
      return p.simple_step_bytes / 1e6;
    case KnobKind::alltoall:
      return p.alltoall_bw_fraction;
    case KnobKind::p2p:
      return p.p2p_latency_s * 1e6;
    case KnobKind::p2p_channel:
      return p.p2p_channel_bytes_per_clock;
    case KnobKind::nvls:
      return p.nvls_latency_s * 1e6;
    case KnobKind::nvls_hop:
      return p.nvls_hop_latency_s * 1e6;
    case KnobKind::hop_scale: {
      // The shipped hops are NCCL's x a scale rounded to 0.01 us: read it from the Simple ring hop.
      const CollectiveLinkParams* l = find_entry(p, k.link);
      const double nccl = p.priors.nccl_nvlink_ring_hop_s[2];
      return nccl > 0 ? l->ring_hop_latency_s[2] / nccl : 0;
    }
    case KnobKind::bw_efficiency:
      return find_entry(p, k.link)->bw_efficiency;
    case KnobKind::transport_base:
      return find_transport_entry(const_cast<CollectiveParams&>(p), k.link)->base_latency_s * 1e6;
  }
  return 0;
}

std::vector<Knob> knobs_of(const CollectiveParams& params) {
  const CollectiveFitPriors& pr = params.priors;
  std::vector<Knob> k = {
      {KnobKind::simple_step, "", "simple_step_mb", "MB", 0.0, 16.0, pr.simple_step_bytes / 1e6},
      {KnobKind::alltoall, "", "alltoall_bw_fraction", "", 0.3, 1.0, pr.alltoall_bw_fraction},
      {KnobKind::p2p, "", "p2p_us", "us", 0.0, 50.0, pr.p2p_latency_s * 1e6},
      {KnobKind::nvls, "", "nvls_us", "us", 0.0, 200.0, pr.nvls_latency_s * 1e6},
      {KnobKind::nvls_hop, "", "nvls_hop_us", "us", 0.0, 10.0, pr.nvls_hop_latency_s * 1e6},
  };
  // NCCL's send/receive kernel's rate per channel, where the parameter set bounds it (a prior
  // of 0: no such bound to fit).
  if (pr.p2p_channel_bytes_per_clock > 0) {
    k.push_back({KnobKind::p2p_channel, "", "p2p_channel_bytes_per_clock", "B/cycle", 2.0, 40.0,
                 pr.p2p_channel_bytes_per_clock});
  }
  // One hop scale per NVLink generation, shared by every system on it. A generation no row of a
  // fold shows keeps the prior (NCCL's x1.0), not what the other generations' rows say: their
  // fitted scales differ by 2.2x (A100 1.83, H100 0.82, B200 1.51 x 1.30), and taking their
  // geometric mean for the unseen one moved leave-one-GPU-out from 7.46% to 11.1% (H100 7.3% ->
  // 23.1%; issue 32, tenth round, docs/model/collectives.md "Which constants are shared").
  for (const std::string& link : pr.hop_scale_links) {
    k.push_back({KnobKind::hop_scale, link, "hop_scale " + link, "", 0.1, 5.0, pr.nvlink_hop_scale});
  }
  for (const std::string& link : pr.bw_efficiency_links) {
    k.push_back({KnobKind::bw_efficiency, link, "bw_efficiency " + link, "", 0.4, 1.0, pr.nvlink_bw_efficiency});
  }
  for (const std::string& id : pr.base_fitted_transports) {
    k.push_back({KnobKind::transport_base, id, "base_us " + id, "us", 0.0, 1000.0, pr.transport_base_latency_s * 1e6});
  }
  return k;
}

// The training rows, their topologies rebuilt from a working parameter set after each change.
class FitProblem {
 public:
  FitProblem(const std::vector<CollectiveMeasurement>& rows, const std::vector<bool>& train, const Catalog& catalog,
             CollectiveParams work)
      : catalog_(catalog), work_(std::move(work)) {
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (!train[i]) continue;
      auto [it, added] = index.emplace(rows[i].system, static_cast<int>(systems_.size()));
      if (added) systems_.push_back(&catalog.system(rows[i].system));
      rows_.push_back({&rows[i], it->second});
    }
    topologies_.resize(systems_.size());
  }

  int rows() const { return static_cast<int>(rows_.size()); }
  CollectiveParams& params() { return work_; }

  // Predicted times of the rows listed in `subset` (all when empty) under the current params.
  void predict(const std::vector<int>& subset, std::vector<double>& out) {
    rebuild();
    out.clear();
    const auto one = [&](int i) {
      const Row& r = rows_[static_cast<std::size_t>(i)];
      const CollectiveEstimate e = estimate_collective(r.m->request, topologies_[static_cast<std::size_t>(r.system)]);
      out.push_back(e.feasible ? e.time_s : HUGE_VAL);
    };
    if (subset.empty()) {
      for (int i = 0; i < rows(); ++i) one(i);
    } else {
      for (int i : subset) one(i);
    }
  }

  // Sum of |log(predicted / measured)| over `subset` (all rows when empty).
  double loss(const std::vector<int>& subset) {
    predict(subset, scratch_);
    double sum = 0;
    for (std::size_t j = 0; j < scratch_.size(); ++j) {
      const int i = subset.empty() ? static_cast<int>(j) : subset[j];
      const double measured = rows_[static_cast<std::size_t>(i)].m->measured_time_s;
      sum += std::isfinite(scratch_[j]) && scratch_[j] > 0 ? std::fabs(std::log(scratch_[j] / measured)) : 10.0;
    }
    return sum;
  }

  // Per row of `subset`: the line auto picks under the current params and that line's time.
  void chosen(const std::vector<int>& subset, std::vector<CollectiveEstimate>& out) {
    rebuild();
    out.clear();
    for (int i : subset) {
      const Row& r = rows_[static_cast<std::size_t>(i)];
      out.push_back(estimate_collective(r.m->request, topologies_[static_cast<std::size_t>(r.system)]));
    }
  }
  // The time of row i on one line (algorithm and protocol held) under the current params.
  double line_time(int i, CollectiveAlgorithm algorithm, Protocol protocol) {
    const Row& r = rows_[static_cast<std::size_t>(i)];
    const CollectiveEstimate e =
        estimate_collective_with(r.m->request, topologies_[static_cast<std::size_t>(r.system)], algorithm, protocol);
    return e.feasible ? e.time_s : HUGE_VAL;
  }
  void refresh() { rebuild(); }

  int per_domain(int i) const { return rows_[static_cast<std::size_t>(i)].m->request.gpus_per_domain; }
  int domains(int i) const { return rows_[static_cast<std::size_t>(i)].m->request.domains; }
  // True when row i's group leaves its domain over a transport whose fixed cost is itself fitted
  // ([priors] base_fitted_transports): on such rows that cost and the other latency terms trade.
  bool crosses_fitted_transport(int i) const {
    const Row& r = rows_[static_cast<std::size_t>(i)];
    if (r.m->request.domains <= 1) return false;
    const std::string& id = topologies_[static_cast<std::size_t>(r.system)].transport;
    for (const std::string& t : work_.priors.base_fitted_transports) {
      if (normalize_name(t) == normalize_name(id)) return true;
    }
    return false;
  }
  double bytes(int i) const { return rows_[static_cast<std::size_t>(i)].m->request.bytes; }
  CollectiveOp op(int i) const { return rows_[static_cast<std::size_t>(i)].m->request.op; }

 private:
  struct Row {
    const CollectiveMeasurement* m;
    int system;
  };
  void rebuild() {
    for (std::size_t s = 0; s < systems_.size(); ++s) {
      topologies_[s] = make_collective_topology(catalog_, *systems_[s], nullptr, work_);
    }
  }

  const Catalog& catalog_;
  CollectiveParams work_;
  std::vector<const System*> systems_;
  std::vector<Row> rows_;
  std::vector<CollectiveTopology> topologies_;
  std::vector<double> scratch_;
};

// Rows whose predicted time moves when knob k goes to either end of its range (the others as
// they are now).
std::vector<int> visible_rows(FitProblem& problem, const Knob& k, double current) {
  std::vector<double> base, at_lo, at_hi;
  problem.predict({}, base);
  set_knob(problem.params(), k, k.lo);
  problem.predict({}, at_lo);
  set_knob(problem.params(), k, k.hi);
  problem.predict({}, at_hi);
  set_knob(problem.params(), k, current);
  std::vector<int> out;
  for (std::size_t i = 0; i < base.size(); ++i) {
    const double tol = 1e-9 * std::fabs(base[i]);
    if (std::fabs(at_lo[i] - base[i]) > tol || std::fabs(at_hi[i] - base[i]) > tol) out.push_back(static_cast<int>(i));
  }
  return out;
}

// A hop scale is a per-step latency: rows tell it only where the steps are a material part of
// the time of the line that runs. Rows that move at the scale's range ends only because another
// line starts to win there (a 20-rack NVLS_TREE AllReduce, where a 142-step Tree chain overtakes
// it at a scale of 0.1) say which line runs, not how long a step takes (docs/model/collectives.md,
// "Fitting the constants").
constexpr double kLatencyBoundShare = 0.10;

// A latency-bound row and the line (op, algorithm, protocol) it runs on.
struct LatencyBoundRow {
  int row = 0;
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
};

// Of the rows `vis`, those where taking the scale to its range's low end, the chosen line held,
// shortens the row by at least kLatencyBoundShare of its time.
std::vector<LatencyBoundRow> latency_bound_rows(FitProblem& problem, const Knob& k, double current,
                                                const std::vector<int>& vis) {
  std::vector<CollectiveEstimate> at_current;
  problem.chosen(vis, at_current);
  set_knob(problem.params(), k, k.lo);
  problem.refresh();
  std::vector<LatencyBoundRow> out;
  for (std::size_t j = 0; j < vis.size(); ++j) {
    const CollectiveEstimate& e = at_current[j];
    if (!e.feasible || !(e.time_s > 0)) continue;
    const double shorter = e.time_s - problem.line_time(vis[j], e.algorithm, e.protocol);
    if (shorter >= kLatencyBoundShare * e.time_s) out.push_back({vis[j], problem.op(vis[j]), e.algorithm, e.protocol});
  }
  set_knob(problem.params(), k, current);
  problem.refresh();
  return out;
}

// Of the rows `vis`, those whose chosen line (held) changes by at least kLatencyBoundShare of
// its time as a fixed cost (p2p_us, nvls_us, nvls_hop_us) or AllToAll's bandwidth fraction goes
// from one end of its search range to the other: the rows where that term is a material part of
// the time. A constant that no such row shows keeps its prior (issue 32, ninth round: OCI's
// 4-16 GiB rows moved p2p_us to its range end, 50 us, and NVLS's per-GPU cost to 0 in the
// held-out folds; eleventh round: 8 x H20 AllToAll rows of 128 B - 4 KiB, latency-bound, moved
// the AllToAll fraction to 0.3, its range end).
std::vector<int> fixed_cost_bound_rows(FitProblem& problem, const Knob& k, double current,
                                       const std::vector<int>& vis) {
  std::vector<CollectiveEstimate> at_current;
  problem.chosen(vis, at_current);
  std::vector<double> at_lo(vis.size(), 0.0);
  set_knob(problem.params(), k, k.lo);
  problem.refresh();
  for (std::size_t j = 0; j < vis.size(); ++j) {
    const CollectiveEstimate& e = at_current[j];
    if (e.feasible) at_lo[j] = problem.line_time(vis[j], e.algorithm, e.protocol);
  }
  set_knob(problem.params(), k, k.hi);
  problem.refresh();
  std::vector<int> out;
  for (std::size_t j = 0; j < vis.size(); ++j) {
    const CollectiveEstimate& e = at_current[j];
    if (!e.feasible || !(e.time_s > 0)) continue;
    const double at_hi = problem.line_time(vis[j], e.algorithm, e.protocol);
    if (std::fabs(at_hi - at_lo[j]) >= kLatencyBoundShare * e.time_s) out.push_back(vis[j]);
  }
  set_knob(problem.params(), k, current);
  problem.refresh();
  return out;
}

// Of the rows `rows`, those whose chosen line's fixed part (latency, Simple's fill included) is
// at least its transfer: the rows a fixed cost is most of.
std::vector<int> mostly_fixed_rows(FitProblem& problem, const std::vector<int>& rows) {
  std::vector<CollectiveEstimate> chosen;
  problem.chosen(rows, chosen);
  std::vector<int> out;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    if (chosen[j].feasible && chosen[j].latency_s >= chosen[j].transfer_s) out.push_back(rows[j]);
  }
  return out;
}

// The most message sizes any one line (op, algorithm, protocol) has among `bound`. A line's
// time is a fixed part (the steps times the per-step latency) plus bytes over its bandwidth, and
// each protocol has its own bandwidth and its own per-step latency (NCCL's tuning.cc: the
// protocol columns of baseLat/hwLat and the LL/LL128 bandwidth fractions): rows at two sizes on
// different protocols (Azure's A100 1 MiB on LL and 16 MiB on LL128) give one point on each of
// two lines and separate neither.
int sizes_on_one_line(const FitProblem& problem, const std::vector<LatencyBoundRow>& bound) {
  int most = 0;
  for (const LatencyBoundRow& a : bound) {
    std::vector<double> sizes;
    for (const LatencyBoundRow& b : bound) {
      if (b.op != a.op || b.algorithm != a.algorithm || b.protocol != a.protocol) continue;
      if (std::find(sizes.begin(), sizes.end(), problem.bytes(b.row)) == sizes.end())
        sizes.push_back(problem.bytes(b.row));
    }
    most = std::max(most, static_cast<int>(sizes.size()));
  }
  return most;
}

// A candidate wins with a lower loss, or with the same loss nearer the prior: where the rows
// cannot tell values apart (a flat stretch of the loss: LL slow enough that no row picks it),
// the fit stays as close to the prior as they allow instead of running to a grid end.
bool better(double loss, double best, double prior_distance, double best_prior_distance) {
  if (loss < best - 1e-12) return true;
  return loss <= best + 1e-12 && prior_distance < best_prior_distance - 1e-12;
}

// Grid search of one knob over [lo, hi], refined twice by 10x around the best; the current
// value is a candidate, so a sweep never raises the loss, and ties resolve the same way every run.
double search_1d(FitProblem& problem, const Knob& k, double current, const std::vector<int>& rows) {
  double best_v = current;
  set_knob(problem.params(), k, current);
  double best = problem.loss(rows);
  double lo = k.lo;
  double hi = k.hi;
  int points = 41;
  for (int level = 0; level < 3; ++level) {
    const double step = (hi - lo) / (points - 1);
    for (int i = 0; i < points; ++i) {
      const double v = lo + i * step;
      set_knob(problem.params(), k, v);
      const double l = problem.loss(rows);
      if (better(l, best, std::fabs(v - k.prior), std::fabs(best_v - k.prior))) {
        best = l;
        best_v = v;
      }
    }
    lo = std::max(k.lo, best_v - step);
    hi = std::min(k.hi, best_v + step);
    points = 21;
  }
  set_knob(problem.params(), k, best_v);
  return best_v;
}

// NVLS base and per-GPU cost together (they trade off against each other along a valley a
// coordinate step crawls): a 2-D grid of 21 x 21, refined twice by 10x around the best.
std::pair<double, double> search_2d(FitProblem& problem, const Knob& kb, const Knob& kh, double base, double hop,
                                    const std::vector<int>& rows) {
  set_knob(problem.params(), kb, base);
  set_knob(problem.params(), kh, hop);
  const auto prior_distance = [&](double b, double h) {
    return std::fabs(b - kb.prior) / (kb.hi - kb.lo) + std::fabs(h - kh.prior) / (kh.hi - kh.lo);
  };
  double best = problem.loss(rows);
  double best_b = base;
  double best_h = hop;
  double blo = kb.lo, bhi = kb.hi, hlo = kh.lo, hhi = kh.hi;
  for (int level = 0; level < 3; ++level) {
    const int points = 21;
    const double bstep = (bhi - blo) / (points - 1);
    const double hstep = (hhi - hlo) / (points - 1);
    for (int i = 0; i < points; ++i) {
      const double h = hlo + i * hstep;
      set_knob(problem.params(), kh, h);
      for (int j = 0; j < points; ++j) {
        const double b = blo + j * bstep;
        set_knob(problem.params(), kb, b);
        const double l = problem.loss(rows);
        if (better(l, best, prior_distance(b, h), prior_distance(best_b, best_h))) {
          best = l;
          best_b = b;
          best_h = h;
        }
      }
    }
    blo = std::max(kb.lo, best_b - bstep);
    bhi = std::min(kb.hi, best_b + bstep);
    hlo = std::max(kh.lo, best_h - hstep);
    hhi = std::min(kh.hi, best_h + hstep);
  }
  set_knob(problem.params(), kb, best_b);
  set_knob(problem.params(), kh, best_h);
  return {best_b, best_h};
}

}  // namespace

CollectiveConstantsFit fit_collective_constants(const std::vector<CollectiveMeasurement>& rows,
                                                const std::vector<bool>& train, const Catalog& catalog,
                                                const CollectiveParams& params) {
  if (!params.priors.present) {
    throw Error(
        fmt::format("collective parameters '{}' have no [priors] table: refitting them (--fit, --leave-one-source-out, "
                    "--leave-one-gpu-out) needs the value each constant takes where no row shows it; see "
                    "data/fitted/collectives/nccl.toml",
                    params.id));
  }
  if (train.size() != rows.size()) throw Error("fit_collective_constants: one train flag per row");
  const std::vector<Knob> knobs = knobs_of(params);
  CollectiveParams start = params;
  std::vector<double> values;
  for (const Knob& k : knobs) {
    set_knob(start, k, k.prior);
    values.push_back(k.prior);
  }
  FitProblem problem(rows, train, catalog, std::move(start));
  if (problem.rows() == 0) throw Error("fit_collective_constants: no training rows");

  CollectiveConstantsFit fit;
  fit.rows = problem.rows();
  // Visibility at the priors decides which constants the rows can tell; the NVLS per-GPU cost
  // also needs two domain sizes among its rows.
  std::vector<bool> free(knobs.size(), false);
  std::vector<CollectiveFittedConstant> out(knobs.size());
  std::size_t nvls = knobs.size(), nvls_hop = knobs.size();
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    const Knob& k = knobs[i];
    const std::vector<int> vis = visible_rows(problem, k, values[i]);
    CollectiveFittedConstant& c = out[i];
    c.name = k.name;
    c.unit = k.unit;
    c.prior = k.prior;
    c.shipped = get_knob(params, k);
    c.visible_rows = static_cast<int>(vis.size());
    free[i] = !vis.empty();
    if (vis.empty()) c.why_prior = "no training row moves it";
    // A per-step latency (hop scale) is told apart from the bandwidth terms only by rows of at
    // least two message sizes (a line's intercept and slope), as NVLS's per-GPU cost needs two
    // domain sizes: one size fixes only latency + bytes / bandwidth together.
    if (k.kind == KnobKind::hop_scale && !vis.empty()) {
      // Only rows inside one scale-up domain: across domains the NVLink steps share the fixed
      // part with the NET hops and a transport's own fixed cost (TCPXO's base_us), and a fold
      // that held out every single-node source of a generation traded one for the other (the
      // A3 Mega AllReduce set NVLink 4's scale to 1.82 and TCPXO's base to 0).
      std::vector<LatencyBoundRow> bound = latency_bound_rows(problem, k, values[i], vis);
      bound.erase(std::remove_if(bound.begin(), bound.end(),
                                 [&](const LatencyBoundRow& b) { return problem.domains(b.row) > 1; }),
                  bound.end());
      if (bound.empty()) {
        free[i] = false;
        c.why_prior = fmt::format(
            "none of its {} rows is latency-bound inside one domain (its hops under {:.0f}% of "
            "the chosen line's time, or the group spans domains)",
            vis.size(), kLatencyBoundShare * 100);
      } else if (sizes_on_one_line(problem, bound) < 2) {
        free[i] = false;
        c.why_prior = fmt::format(
            "its {} latency-bound rows have one message size on each line (op, algorithm, "
            "protocol; {:.0f} B first): per-step latency and bandwidth not separable",
            bound.size(), problem.bytes(bound.front().row));
      }
    }
    // A fixed cost (grouped send/receive, NVLS base and per-GPU cost) is told only by rows where
    // it is a material part of the chosen line's time, as a hop scale is (issue 32, ninth round):
    // OCI's rows of 4-16 GiB move by ~0.1-3% across these costs' ranges, and the held-out folds
    // read p2p_us off them as 50 us (the range end, against 11.7 us on every row) and NVLS's
    // per-GPU cost as 0 (the other end).
    std::vector<int> bound_rows = vis;
    if ((k.kind == KnobKind::p2p || k.kind == KnobKind::nvls || k.kind == KnobKind::nvls_hop) && !vis.empty()) {
      bound_rows = fixed_cost_bound_rows(problem, k, values[i], vis);
      // The grouped send/receive cost, moreover, only by rows whose chosen line is mostly fixed
      // part (latency at least its transfer): across its 0-50 us range it moves a 32 MiB
      // AllToAll of 125 us by 40%, and the folds without AIConfigurator read it off xxrjun's
      // 32-64 MiB H100 rows, traded against the bandwidth terms, as 6.15 us against the
      // 10-16 us the latency-bound rows show (issue 32, sixteenth session).
      if (k.kind == KnobKind::p2p) bound_rows = mostly_fixed_rows(problem, bound_rows);
      if (bound_rows.empty()) {
        free[i] = false;
        c.why_prior = fmt::format(
            "none of its {} rows is latency-bound (across its range it moves the chosen line by under {:.0f}%{})",
            vis.size(), kLatencyBoundShare * 100,
            k.kind == KnobKind::p2p ? ", or its fixed part is under its transfer" : "");
      }
    }
    // AllToAll's bandwidth fraction, the other way round: told only by rows whose transfer is a
    // material part of the time (issue 32, eleventh round); the send/receive kernel's rate per
    // channel likewise (a bound on the transfer).
    if ((k.kind == KnobKind::alltoall || k.kind == KnobKind::p2p_channel) && !vis.empty() &&
        fixed_cost_bound_rows(problem, k, values[i], vis).empty()) {
      free[i] = false;
      c.why_prior = fmt::format(
          "none of its {} rows is bandwidth-bound (across its range it moves the chosen line by under {:.0f}%)",
          vis.size(), kLatencyBoundShare * 100);
    }
    // ... and only by rows on the channels NCCL starts each peer on: past its spread the fraction's
    // loss is shared out over more channels (cost/collective_p2p_channels.h), and OCI's 4-16 GiB
    // rows alone read it as 0.67 (issue 32, fourteenth session).
    if (k.kind == KnobKind::alltoall && free[i] && std::none_of(vis.begin(), vis.end(), [&](int r) {
          return !nccl_p2p_channels_widened(problem.op(r), problem.bytes(r), problem.per_domain(r) * problem.domains(r),
                                            problem.domains(r));
        })) {
      free[i] = false;
      c.why_prior = fmt::format(
          "its {} rows all run past NCCL's channel spread (parts above 16 MiB): the fraction on the starting "
          "channels is not seen",
          vis.size());
    }
    if (k.kind == KnobKind::nvls) nvls = i;
    if (k.kind == KnobKind::nvls_hop) {
      nvls_hop = i;
      std::vector<int> sizes;
      for (int r : bound_rows) {
        if (std::find(sizes.begin(), sizes.end(), problem.per_domain(r)) == sizes.end()) {
          sizes.push_back(problem.per_domain(r));
        }
      }
      if (!bound_rows.empty() && sizes.size() < 2) {
        free[i] = false;
        c.why_prior = fmt::format("its {} rows have one domain size ({} GPUs): base and per-GPU cost not separable",
                                  bound_rows.size(), sizes.front());
      }
    }
  }
  const bool joint_nvls = nvls < knobs.size() && nvls_hop < knobs.size() && free[nvls] && free[nvls_hop];

  for (fit.sweeps = 1; fit.sweeps <= 20; ++fit.sweeps) {
    bool moved = false;
    for (std::size_t i = 0; i < knobs.size(); ++i) {
      if (!free[i] || (joint_nvls && i == nvls_hop)) continue;
      const std::vector<int> vis = visible_rows(problem, knobs[i], values[i]);
      if (joint_nvls && i == nvls) {
        const std::vector<int> vis_hop = visible_rows(problem, knobs[nvls_hop], values[nvls_hop]);
        std::vector<int> both = vis;
        for (int r : vis_hop) {
          if (std::find(both.begin(), both.end(), r) == both.end()) both.push_back(r);
        }
        std::sort(both.begin(), both.end());
        if (both.empty()) continue;
        const auto [b, h] = search_2d(problem, knobs[nvls], knobs[nvls_hop], values[nvls], values[nvls_hop], both);
        moved = moved || b != values[nvls] || h != values[nvls_hop];
        values[nvls] = b;
        values[nvls_hop] = h;
        continue;
      }
      // A hop scale is fitted on rows inside one domain only (see above); the other constants
      // but a transport's own fixed cost leave the rows that cross such a transport to it (a
      // fold with only dstack's A3 Mega AllGather otherwise traded TCPXO's base, 197 us, for a
      // Simple step of 3.0 MB that every NVLink row then ran with).
      std::vector<int> fit_rows = vis;
      const Knob& k = knobs[i];
      fit_rows.erase(std::remove_if(fit_rows.begin(), fit_rows.end(),
                                    [&](int r) {
                                      if (k.kind == KnobKind::hop_scale) return problem.domains(r) > 1;
                                      return k.kind != KnobKind::transport_base && problem.crosses_fitted_transport(r);
                                    }),
                     fit_rows.end());
      if (fit_rows.empty()) continue;
      const double v = search_1d(problem, knobs[i], values[i], fit_rows);
      moved = moved || v != values[i];
      values[i] = v;
    }
    if (!moved) break;
  }
  fit.sweeps = std::min(fit.sweeps, 20);
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    out[i].value = values[i];
    out[i].refitted = free[i];
  }
  fit.loss = problem.loss({}) / problem.rows();
  fit.constants = std::move(out);
  return fit;
}

CollectiveParams with_fitted_constants(const CollectiveParams& params, const CollectiveConstantsFit& fit) {
  CollectiveParams p = params;
  const std::vector<Knob> knobs = knobs_of(params);
  for (const CollectiveFittedConstant& c : fit.constants) {
    for (const Knob& k : knobs) {
      if (k.name == c.name) set_knob(p, k, c.value);
    }
  }
  return p;
}

}  // namespace gpuplan
