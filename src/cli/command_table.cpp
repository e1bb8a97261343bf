#include "cli/commands.h"

namespace gpuplan {

std::span<const CommandRow> command_table() {
  static const CommandRow rows[] = {
      {"gpus", "List the GPU catalog as a comparison table", setup_gpus},
      {"gpu", "One GPU with the figures derived from its datasheet", setup_gpu},
      {"compare", "Compare GPUs side by side, with ratios to the first", setup_compare},
      {"collective", "Time and bus bandwidth of one collective (or a size sweep) on a system/fabric", setup_collective},
      {"calibrate", "Fit the model's constants to your own runs: calibrate training RUNS.csv --out FILE (then --calibration FILE)", setup_calibrate},
      {"validate", "Score the models against measured runs: validate collectives|training|inference FILE.csv", setup_validate},
      {"systems", "List nodes, racks and fabrics with their bandwidth per GPU", setup_systems},
      {"system", "One system or fabric: bandwidth per level, node totals, bisection", setup_system},
      {"import-topology", "A catalog system (TOML) from 'nvidia-smi topo -m' output or NCCL's topology dump: keep it, pass it back with --catalog", setup_import_topology},
      {"clouds", "Dated cloud GPU prices (current by default; --all adds historical)", setup_clouds},
      {"models", "List the model zoo: shape, total and active parameters", setup_models},
      {"model", "One model (zoo id or config.json): parameters, FLOPs per token, weight and KV bytes", setup_model},
      {"train", "Estimate one training plan: step time, tokens/s, MFU, memory per GPU, where the time goes", setup_train},
      {"memory", "Training memory per GPU for a plan, and whether it fits (--rule-of-thumb: the seed table)", setup_memory},
      {"search", "Search every training plan for the fastest (or cheapest) on N GPUs: top K with breakdowns", setup_search},
      {"sweep", "A design-space study from a JSON spec: models × GPUs × GPU counts, each searched; splits over mpirun ranks", setup_sweep},
      {"recommend", "Which GPU, how many and which cloud offer for T training tokens: Pareto front of time vs cost", setup_recommend},
      {"cost", "What a run costs per cloud offer: on-demand, spot with restart overhead, reserved", setup_cost},
      {"tco", "Owning vs renting over N years: on-prem TCO and break-even hours per day", setup_tco},
      {"energy", "Energy, electricity cost and CO2 of running GPUs", setup_energy},
      {"infer", "Estimate serving: TTFT, TPOT, tokens/s, memory and KV budget, bottleneck, cost per M tokens", setup_infer},
      {"infer-search", "Search TP/PP/EP, precision and concurrency for the most tokens/s per GPU or per dollar under TTFT/TPOT targets", setup_infer_search},
      {"monitor", "Sample every local GPU through NVML: utilisation, memory, power, clocks, throttle reasons, PCIe/NVLink", setup_monitor},
      {"serve", "The web UI and JSON API on 127.0.0.1 (--port, --host): pick a model and plan, see the charts", setup_serve},
      {"rooflines", "The seed's scaling rooflines per fabric level: min tokens/GPU for DP, FSDP, MoE; max TP", setup_rooflines},
  };
  return rows;
}

}  // namespace gpuplan
