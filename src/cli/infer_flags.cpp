#include "cli/args.h"
#include "cli/infer_flags.h"

#include <fmt/format.h>

#include "cli/context.h"
#include "calibration/calibration_scale.h"
#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {

void add_infer_flags(CliCommand& cmd, InferFlags& f) {
  cmd.add_option("--model", f.model, "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json")
      ->required();
  cmd.add_option("--gpu", f.gpu, "GPU id (see 'gpuplan gpus')")->required();
  cmd.add_option("--engine", f.engine, "Serving engine: tensorrt-llm, vllm or sglang (default vllm)");
  cmd.add_option("--system", f.system, "System whose scale-up domain carries TP traffic (default: the GPU's usual node)");
  cmd.add_option("--weights", f.weights, "Weight precision: bf16, fp16, fp8, int8, int4, fp4 (default bf16)");
  cmd.add_option("--kv", f.kv, "KV-cache precision: bf16, fp16, fp8 (default: fp8 with 8-bit or smaller weights)");
  cmd.add_option("--input-len", f.input_len, "Prompt tokens per request (default 1024)");
  cmd.add_option("--output-len", f.output_len, "Generated tokens per request (default 256)");
  cmd.add_option("--calibration", f.calibration,
                 "Profile from gpuplan-bench for this GPU: scales the GEMM rates by measured / reference");
  cmd.add_flag("--json", f.json, "Print one JSON object");
}

Precision parse_weight_precision(const std::string& text) {
  const auto p = parse_precision(to_lower(text));
  if (!p || (*p != Precision::bf16 && *p != Precision::fp16 && *p != Precision::fp8 && *p != Precision::int8 &&
             *p != Precision::int4 && *p != Precision::fp4)) {
    throw Error(fmt::format("--weights '{}': use bf16, fp16, fp8, int8, int4 or fp4", text));
  }
  return *p;
}

Precision parse_kv_precision(const std::string& text) {
  const auto p = parse_precision(to_lower(text));
  if (!p || (*p != Precision::bf16 && *p != Precision::fp16 && *p != Precision::fp8)) {
    throw Error(fmt::format("--kv '{}': use bf16, fp16 or fp8", text));
  }
  return *p;
}

InferSetup make_infer_setup(CliContext& cli, const InferFlags& f) {
  const Catalog& catalog = cli.catalog();
  InferSetup s;
  const ModelSpec* model = &cli.resolve_model(f.model, s.owned_model);
  const Gpu& gpu = catalog.gpu(f.gpu);
  const Engine* found = catalog.find_engine(f.engine);
  if (!found) {
    std::vector<std::string> ids;
    for (const Engine& e : catalog.engines) ids.push_back(e.id);
    throw Error(fmt::format("unknown engine '{}'; known engines: {}", f.engine, join(ids, ", ")));
  }
  const Engine& engine = *found;
  const System* system = f.system.empty() ? nullptr : &catalog.system(f.system);
  if (f.input_len < 1 || f.output_len < 1) throw Error("--input-len and --output-len must be at least 1");
  s.weights = parse_weight_precision(f.weights);
  if (!f.kv.empty()) {
    s.kv = parse_kv_precision(f.kv);
  } else {
    s.kv = precision_bytes(s.weights) < 2 ? Precision::fp8 : s.weights == Precision::fp16 ? Precision::fp16
                                                                                           : Precision::bf16;
  }
  s.ctx = make_infer_context(catalog, *model, gpu, engine, system);
  if (!f.calibration.empty()) {
    const CalibrationScale scale = calibration_scale(gpu, load_calibration(f.calibration));
    s.ctx.calibration_gemm_scale = scale.gemm;
    s.ctx.calibration_attention_scale = scale.attention;
    s.ctx.calibration_bw_scale = scale.memory_bw;
    s.calibration_notes = calibration_notes(scale);
  }
  return s;
}

}  // namespace gpuplan
