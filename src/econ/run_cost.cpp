#include "econ/run_cost.h"

#include "core/error.h"

namespace gpuplan {

double training_flops_6nd(double params, double tokens) { return 6.0 * params * tokens; }

double training_seconds(double flops, int gpus, double peak_flops_per_s, double mfu) {
  GP_ASSERT(gpus > 0 && peak_flops_per_s > 0 && mfu > 0, "callers validate the run size, peak and MFU");
  return flops / (gpus * peak_flops_per_s * mfu);
}

double spot_overhead_fraction(const SpotModel& model, int instances) {
  GP_ASSERT(instances >= 1, "at least one instance");
  const double job_interruptions_per_h = instances * model.interruptions_per_instance_per_day / 24.0;
  return job_interruptions_per_h * (model.restart_h + 0.5 * model.checkpoint_interval_h);
}

RunCost price_run_on_instances(int gpus, double wall_hours, int gpus_per_instance, double usd_per_gpu_hour,
                               double overhead_fraction) {
  GP_ASSERT(gpus >= 1 && gpus_per_instance >= 1, "GPU counts are validated by the caller");
  RunCost c;
  c.instances = (gpus + gpus_per_instance - 1) / gpus_per_instance;
  c.overhead_fraction = overhead_fraction;
  c.wall_hours = wall_hours * (1.0 + overhead_fraction);
  c.billed_gpu_hours = static_cast<double>(c.instances) * gpus_per_instance * c.wall_hours;
  c.usd = c.billed_gpu_hours * usd_per_gpu_hour;
  return c;
}

RunCost price_gpu_hours(double gpu_hours, double usd_per_gpu_hour, double overhead_fraction) {
  RunCost c;
  c.overhead_fraction = overhead_fraction;
  c.billed_gpu_hours = gpu_hours * (1.0 + overhead_fraction);
  c.usd = c.billed_gpu_hours * usd_per_gpu_hour;
  return c;
}

}  // namespace gpuplan
