#include "cli/infer_flags.h"

namespace gpuplan {

void add_infer_flags(CliCommand& cmd, InferCommon& f, bool& json) {
  cmd.add_option("--model", f.model, "Model id or alias (see 'gpuplan models'), or a Hugging Face config.json")
      ->required();
  cmd.add_option("--gpu", f.gpu, "GPU id (see 'gpuplan gpus')")->required();
  cmd.add_option("--engine", f.engine, "Serving engine: tensorrt-llm (0.x), tensorrt-llm-1.0, trtllm, vllm (V1), vllm-v0 or sglang (default vllm)");
  cmd.add_option("--system", f.system, "System whose scale-up domain carries TP traffic (default: the GPU's usual node)");
  cmd.add_option("--weights", f.weights, "Weight precision: bf16, fp16, fp8, int8, int4, fp4 (default bf16)");
  cmd.add_option("--kv", f.kv, "KV-cache precision: bf16, fp16, fp8 (default: fp8 with 8-bit or smaller weights)");
  cmd.add_option("--input-len", f.input_len, "Prompt tokens per request (default 1024)");
  cmd.add_option("--output-len", f.output_len, "Generated tokens per request (default 256)");
  cmd.add_flag("--allow-longer-context", f.allow_longer_context,
               "Allow --input-len + --output-len beyond the model's context length (max_seq_len)");
  cmd.add_option("--calibration", f.calibration,
                 "Profile from gpuplan-bench for this GPU: scales the GEMM rates by measured / reference; or nccl-tests output (all_reduce_perf, ...): its rows calibrate the collective model's "
                 "bandwidth and latency (docs/calibration.md)");
  cmd.add_flag("--json", json, "Print one JSON object");
}

}  // namespace gpuplan
