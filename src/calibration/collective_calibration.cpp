#include "calibration/collective_calibration.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/units.h"

namespace gpuplan {
std::optional<CalibratedCollective> calibrated_collective(const CalibrationProfile& profile, CollectiveOp op,
                                                          int gpus, double bytes,
                                                          const std::function<double(double)>& model_time_s,
                                                          std::string& why) {
  const std::string name = profile_collective_name(op);
  if (name.empty()) {
    why = "gpuplan-bench does not measure this op";
    return std::nullopt;
  }
  std::vector<const CollectivePoint*> pts;
  for (const CollectivePoint& p : profile.collectives) {
    if (p.op == name && p.gpus == gpus && p.bytes > 0 && p.time_s > 0) pts.push_back(&p);
  }
  if (pts.empty()) {
    why = fmt::format("{} has no {} measured on {} GPUs", profile.file, name, gpus);
    return std::nullopt;
  }
  std::sort(pts.begin(), pts.end(), [](const auto* a, const auto* b) { return a->bytes < b->bytes; });
  CalibratedCollective c;
  const auto anchored = [&](const CollectivePoint& edge) {
    const double model_edge = model_time_s(edge.bytes);
    const double model_here = model_time_s(bytes);
    return model_edge > 0 ? edge.time_s * model_here / model_edge : edge.time_s * bytes / edge.bytes;
  };
  if (bytes <= pts.front()->bytes) {
    c.time_s = bytes == pts.front()->bytes ? pts.front()->time_s : anchored(*pts.front());
    c.how = bytes == pts.front()->bytes ? "measured"
                                        : fmt::format("model scaled from the smallest measured size, {}",
                                                      format_bytes(pts.front()->bytes, true));
  } else if (bytes >= pts.back()->bytes) {
    c.time_s = bytes == pts.back()->bytes ? pts.back()->time_s : anchored(*pts.back());
    c.how = bytes == pts.back()->bytes ? "measured"
                                       : fmt::format("model scaled from the largest measured size, {}",
                                                     format_bytes(pts.back()->bytes, true));
  } else {
    std::size_t hi = 1;
    while (pts[hi]->bytes < bytes) ++hi;
    const CollectivePoint& a = *pts[hi - 1];
    const CollectivePoint& b = *pts[hi];
    if (b.bytes == bytes) {
      c.time_s = b.time_s;
      c.how = "measured";
    } else {
      // Time against size is close to a straight line in log-log between neighbouring sizes
      // (latency-bound: flat; bandwidth-bound: slope 1).
      const double t = std::log(bytes / a.bytes) / std::log(b.bytes / a.bytes);
      c.time_s = std::exp(std::log(a.time_s) + t * std::log(b.time_s / a.time_s));
      c.how = fmt::format("interpolated between measured {} and {}", format_bytes(a.bytes, true), format_bytes(b.bytes, true));
    }
  }
  c.busbw_bytes_per_s = bytes / c.time_s * busbw_factor(op, gpus);
  return c;
}

}  // namespace gpuplan
