// The collective model calibrated by the user's own measurements (an nccl-tests log, or the
// collective points of a gpuplan-bench profile), for the evaluators that call it millions of
// times (`train`, `infer`): rather than interpolating the measured curve on every call (what
// `collective --calibration` shows, collective_calibration.h), the measurement rescales the two
// kinds of constant the model is built from, on the rows where each is visible:
//   - bandwidth: rows where the model says the transfer is >= 80% of the time; each gives
//     measured transfer = measured time - model latency, and the level that bounds it (the
//     scale-up domain, the NICs, a fabric level) is scaled by the median model / measured
//     transfer of its rows;
//   - latency: rows where, after that, the fixed part is >= 80% of the time; one factor for
//     every base and per-hop latency (NCCL's and RCCL's constants are per software stack, so a
//     slower stack is slower at every step).
// Levels and latencies with no visible row stay as shipped, and the notes say so.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "calibration/profile.h"
#include "cost/collective.h"

namespace gpuplan {

struct CollectiveCalibration {
  std::array<double, kMaxCollectiveLevels> bw_scale{1, 1, 1, 1, 1, 1};  // per level, x achieved bandwidth
  double latency_scale = 1;                                              // x every fixed cost
  std::vector<std::string> applied;  // one line per factor: the constant, the factor, the rows it came from
  std::vector<std::string> skipped;  // rows or constants the log could not inform, and why
};

// Factors that make `topology` reproduce the profile's collective points. Throws Error when a
// factor is outside [1/4, 4] (the log was measured on another system than the one planned) or
// when the profile has no collective point.
CollectiveCalibration fit_collective_calibration(const CalibrationProfile& profile, const CollectiveTopology& topology);

// Bandwidths of each level (achieved, in-network, NVLS bus rate, mesh per-peer) times
// bw_scale, every latency constant times latency_scale.
void apply_collective_calibration(CollectiveTopology& topology, const CollectiveCalibration& calibration);

// "applied: ..." then "skipped: ..." lines, as calibration_notes() writes them.
std::vector<std::string> collective_calibration_notes(const CollectiveCalibration& calibration);

// One call for the evaluators: fit on the profile's collective points and apply to `topology`;
// returns the notes (none when the profile has no collective point).
std::vector<std::string> calibrate_collective_topology(const CalibrationProfile& profile,
                                                       CollectiveTopology& topology);

}  // namespace gpuplan
