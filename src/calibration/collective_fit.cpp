#include "calibration/collective_fit.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/units.h"

namespace gpuplan {
namespace {

// A row informs a constant only where that constant is most of the predicted time.
constexpr double kVisibleShare = 0.8;
// Beyond these factors the log cannot be the planned system's (an H100 log on a B200 plan).
constexpr double kMinFactor = 0.25;
constexpr double kMaxFactor = 4.0;

struct Sample {
  double factor = 0;
  const CollectivePoint* point = nullptr;
};

// The request a measured point stands for: inside one domain when it fits, else whole domains.
std::optional<CollectiveRequest> point_request(const CollectivePoint& p, const CollectiveTopology& t) {
  const auto op = profile_collective_op(p.op);
  if (!op || p.gpus < 2 || !(p.bytes > 0) || !(p.time_s > 0)) return std::nullopt;
  CollectiveRequest r;
  r.op = *op;
  r.bytes = p.bytes;
  if (p.gpus <= t.domain_gpus) {
    r.gpus_per_domain = p.gpus;
  } else if (p.gpus % t.domain_gpus == 0) {
    r.gpus_per_domain = t.domain_gpus;
    r.domains = p.gpus / t.domain_gpus;
  } else {
    return std::nullopt;
  }
  return r;
}

double median_factor(std::vector<Sample>& samples) {
  std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.factor < b.factor; });
  const std::size_t n = samples.size();
  return n % 2 ? samples[n / 2].factor : 0.5 * (samples[n / 2 - 1].factor + samples[n / 2].factor);
}

// "3 rows: all_reduce on 16 GPUs, 64 MiB - 1 GiB; log lines 26, 27, 28"
std::string rows_text(const std::vector<Sample>& samples) {
  std::vector<std::string> what;
  double lo = HUGE_VAL;
  double hi = 0;
  std::vector<int> lines;
  for (const Sample& s : samples) {
    const std::string w = fmt::format("{} on {} GPUs", s.point->op, s.point->gpus);
    if (std::find(what.begin(), what.end(), w) == what.end()) what.push_back(w);
    lo = std::min(lo, s.point->bytes);
    hi = std::max(hi, s.point->bytes);
    if (s.point->line > 0) lines.push_back(s.point->line);
  }
  std::sort(lines.begin(), lines.end());
  std::string out = fmt::format("{} row{}: {}, {}", samples.size(), samples.size() == 1 ? "" : "s",
                                fmt::join(what, ", "),
                                lo == hi ? format_bytes(lo, true)
                                         : fmt::format("{} - {}", format_bytes(lo, true), format_bytes(hi, true)));
  if (!lines.empty()) out += fmt::format("; log lines {}", fmt::join(lines, ", "));
  return out;
}

void check_factor(const CalibrationProfile& profile, const CollectiveTopology& t, const std::string& what, double factor) {
  if (factor >= kMinFactor && factor <= kMaxFactor) return;
  throw Error(fmt::format("{}: the measured collectives put the {} at {:.2f}x the model's for system '{}' (outside "
                          "{}-{}x); the log was probably measured on another system: plan with the --system it "
                          "was measured on, or measure this one",
                          profile.file, what, factor, t.system_id, kMinFactor, kMaxFactor));
}

}  // namespace

CollectiveCalibration fit_collective_calibration(const CalibrationProfile& profile, const CollectiveTopology& topology) {
  if (profile.collectives.empty()) {
    throw Error(fmt::format("{}: no collective measurement to calibrate the collective model with", profile.file));
  }
  CollectiveCalibration c;
  int unplaced = 0;
  // Bandwidth: per bounding level.
  std::array<std::vector<Sample>, kMaxCollectiveLevels> bw;
  for (const CollectivePoint& p : profile.collectives) {
    const auto r = point_request(p, topology);
    const CollectiveEstimate e = r ? estimate_collective(*r, topology) : CollectiveEstimate{};
    if (!r || !e.feasible) {
      ++unplaced;
      continue;
    }
    if (e.transfer_s >= kVisibleShare * e.time_s && p.time_s > e.latency_s) {
      bw[e.bottleneck_level].push_back({e.transfer_s / (p.time_s - e.latency_s), &p});
    }
  }
  for (int i = 0; i < topology.level_count; ++i) {
    if (bw[i].empty()) continue;
    c.bw_scale[i] = median_factor(bw[i]);
    const std::string level = topology.level_names[i].empty() ? fmt::format("level {}", i) : topology.level_names[i];
    check_factor(profile, topology, fmt::format("{} bandwidth", level), c.bw_scale[i]);
    c.applied.push_back(fmt::format("collective bandwidth of {} x{:.3f} (median measured / model transfer; {})", level,
                                    c.bw_scale[i], rows_text(bw[i])));
  }
  // Latency: on the rebuilt topology, so that bandwidth-bound rows' share is not counted twice.
  CollectiveTopology scaled = topology;
  apply_collective_calibration(scaled, c);
  std::vector<Sample> lat;
  for (const CollectivePoint& p : profile.collectives) {
    const auto r = point_request(p, scaled);
    if (!r) continue;
    const CollectiveEstimate e = estimate_collective(*r, scaled);
    if (!e.feasible || e.latency_s <= 0) continue;
    if (e.latency_s >= kVisibleShare * e.time_s && p.time_s > e.transfer_s) {
      lat.push_back({(p.time_s - e.transfer_s) / e.latency_s, &p});
    }
  }
  if (!lat.empty()) {
    c.latency_scale = median_factor(lat);
    check_factor(profile, topology, "fixed cost (latency)", c.latency_scale);
    c.applied.push_back(fmt::format("collective latency (every base and per-hop constant) x{:.3f} (median measured / "
                                    "model fixed cost; {})",
                                    c.latency_scale, rows_text(lat)));
  } else {
    c.skipped.push_back(fmt::format("collective latency: no row where the fixed cost is at least {:.0f}% of the time "
                                    "(measure sizes of a few KiB to see it)",
                                    kVisibleShare * 100));
  }
  bool any_bw = false;
  for (const auto& v : bw) any_bw = any_bw || !v.empty();
  if (!any_bw) {
    c.skipped.push_back(fmt::format("collective bandwidth: no row where the transfer is at least {:.0f}% of the time "
                                    "(measure sizes of 64 MiB and more to see it)",
                                    kVisibleShare * 100));
  }
  if (unplaced > 0) {
    c.skipped.push_back(fmt::format("{} collective row{} whose GPU count does not fit system '{}' ({} GPUs per domain) "
                                    "or whose op the model does not run",
                                    unplaced, unplaced == 1 ? "" : "s", topology.system_id, topology.domain_gpus));
  }
  return c;
}

void apply_collective_calibration(CollectiveTopology& t, const CollectiveCalibration& c) {
  for (int i = 0; i < kMaxCollectiveLevels; ++i) {
    CollectiveLevel& l = t.levels[i];
    const double s = c.bw_scale[i];
    l.bw_bytes_per_s *= s;
    l.reduction_bw_bytes_per_s *= s;
    l.reduction_busbw_bytes_per_s *= s;
    if (i == 0) t.mesh_peer_bw *= s;
    for (int p = 0; p < kProtocolCount; ++p) {
      l.ring_hop_s[p] *= c.latency_scale;
      l.tree_hop_s[p] *= c.latency_scale;
    }
  }
  for (int p = 0; p < kProtocolCount; ++p) {
    t.ring_base_s[p] *= c.latency_scale;
    t.tree_base_s[p] *= c.latency_scale;
  }
  t.nvls_latency_s *= c.latency_scale;
  t.nvls_hop_s *= c.latency_scale;
  t.p2p_latency_s *= c.latency_scale;
}

std::vector<std::string> collective_calibration_notes(const CollectiveCalibration& c) {
  std::vector<std::string> notes;
  for (const std::string& line : c.applied) notes.push_back("applied: " + line);
  for (const std::string& line : c.skipped) notes.push_back("skipped: " + line);
  return notes;
}

std::vector<std::string> calibrate_collective_topology(const CalibrationProfile& profile,
                                                       CollectiveTopology& topology) {
  if (profile.collectives.empty()) return {};
  const CollectiveCalibration c = fit_collective_calibration(profile, topology);
  apply_collective_calibration(topology, c);
  return collective_calibration_notes(c);
}

}  // namespace gpuplan
