// What a run costs in the cloud: its duration from 6·N·D, the GPU-hours billed for whole
// instances, and the spot checkpoint/restart overhead. Pure functions; formulas and sources
// in docs/model/economics.md.
#pragma once

namespace gpuplan {

// Training FLOPs by the 6·N·D rule (Kaplan et al. 2020: forward 2N + backward 4N per token),
// attention left out. `params` is the parameter count a token uses (active params for MoE).
double training_flops_6nd(double params, double tokens);

// Wall-clock seconds for `flops` on `gpus` GPUs of `peak_flops_per_s` each at model-FLOPs
// utilisation `mfu` (1 = the physical lower bound).
double training_seconds(double flops, int gpus, double peak_flops_per_s, double mfu);

// Spot checkpoint/restart model. A synchronous job stops whenever any of its instances is
// reclaimed, so the job's interruption rate is instances × the per-instance rate. Each
// interruption costs the restart time plus, on average, half a checkpoint interval of lost work.
struct SpotModel {
  double interruptions_per_instance_per_day = 0;
  double restart_h = 0;
  double checkpoint_interval_h = 0;
};

// Extra wall time as a fraction of the uninterrupted time (first order):
// instances × rate/24 × (restart_h + checkpoint_interval_h / 2).
double spot_overhead_fraction(const SpotModel& model, int instances);

// One priced run on one offer.
struct RunCost {
  int instances = 0;             // whole instances rented (0: priced per GPU-hour only)
  double wall_hours = 0;         // including the spot overhead
  double billed_gpu_hours = 0;   // GPUs rented × wall hours (idle GPUs of a part-used instance too)
  double overhead_fraction = 0;  // spot restart overhead applied
  double usd = 0;
};

// A run of `gpus` GPUs for `wall_hours`, on instances of `gpus_per_instance` GPUs at
// `usd_per_gpu_hour`: whole instances are billed (ceil(gpus / gpus_per_instance)).
RunCost price_run_on_instances(int gpus, double wall_hours, int gpus_per_instance, double usd_per_gpu_hour,
                               double overhead_fraction);

// A run known only by its GPU-hours, billed per GPU-hour.
RunCost price_gpu_hours(double gpu_hours, double usd_per_gpu_hour, double overhead_fraction);

}  // namespace gpuplan
