// Serving launch configurations: vLLM (`vllm serve`), SGLang (`python -m sglang.launch_server`)
// and TensorRT-LLM (`trtllm-serve`, with an extra_llm_api_options YAML), for the plan and engine
// gpuplan evaluated. Flag names checked against each engine's argument definitions (flag_source).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"
#include "emit/emit_common.h"
#include "emit/launch_config.h"

namespace gpuplan {
namespace {

// The running batch the estimate settled on, as the scheduler cap (at least 1); under attention DP
// each rank's scheduler takes its share.
long long emit_max_seqs(const InferAnswer& a) {
  return std::max<long long>(1, static_cast<long long>(std::ceil(a.estimate.point.running / a.plan.attention_dp - 1e-9)));
}
long long emit_max_len(const InferAnswer& a) { return a.plan.input_len + a.plan.output_len; }
long long emit_max_tokens(const InferAnswer& a) {
  return static_cast<long long>(a.setup.ctx.engine->max_num_batched_tokens);
}

// Weight quantisation as each engine names it; "" = none (16-bit).
std::string emit_quant_name(Precision w, const char* fp8, const char* int4) {
  if (w == Precision::fp8) return fp8;
  if (w == Precision::int4) return int4;
  return "";
}

void emit_serving_notes(const InferAnswer& a, LaunchConfig& c) {
  if (a.plan.replicas > 1)
    c.notes.push_back(fmt::format("{} replicas: start one server per replica ({} GPUs each) behind a load balancer",
                                  a.plan.replicas, a.plan.gpus_per_replica()));
  if (!a.estimate.feasible) c.notes.push_back("the plan does not fit: " + a.estimate.reason);
}

void emit_require_engine(const InferAnswer& a, const std::string& framework, const std::string& engine_id) {
  const std::string& evaluated = a.setup.ctx.engine->id;
  if (evaluated != engine_id)
    throw Error(fmt::format("--emit {}: the plan was evaluated for engine {}; add --engine {} so the estimate and the "
                            "launch config describe the same server", framework, evaluated, engine_id));
}

// vLLM v0.10: vllm/engine/arg_utils.py (EngineArgs.add_cli_args).
LaunchConfig emit_vllm(const InferAnswer& a) {
  emit_require_engine(a, "vllm", "vllm");
  LaunchConfig c;
  c.framework = "vllm";
  c.version = "vLLM v0.10";
  c.flag_source = "vllm/engine/arg_utils.py (vllm-project/vllm)";
  auto flag = [&](const std::string& f, auto v) { c.flags.emplace_back(f, fmt::format("{}", v)); };
  // Attention DP: vLLM's --data-parallel-size ranks of --tensor-parallel-size GPUs each, the
  // experts over all of them with --enable-expert-parallel (EP = DP × TP; vLLM docs, "Data
  // Parallel Deployment" / "Expert Parallel Deployment").
  flag("--tensor-parallel-size", a.plan.attention_tp());
  if (a.plan.attention_dp > 1) flag("--data-parallel-size", a.plan.attention_dp);
  if (a.plan.pp > 1) flag("--pipeline-parallel-size", a.plan.pp);
  if (a.plan.ep > 1 || a.plan.attention_dp > 1) c.flags.emplace_back("--enable-expert-parallel", "");
  if (a.plan.attention_dp > 1 && a.plan.ep != a.plan.tp)
    c.notes.push_back(fmt::format("vLLM spreads the experts over all {} GPUs (EP {}) under data parallelism; the plan "
                                  "was evaluated with EP {}", a.plan.tp, a.plan.tp, a.plan.ep));
  flag("--max-model-len", emit_max_len(a));
  flag("--max-num-seqs", emit_max_seqs(a));
  flag("--max-num-batched-tokens", emit_max_tokens(a));
  flag("--dtype", "bfloat16");
  if (const std::string q = emit_quant_name(a.plan.weights, "fp8", "awq"); !q.empty()) flag("--quantization", q);
  if (a.plan.kv == Precision::fp8) flag("--kv-cache-dtype", "fp8");
  if (a.plan.weights == Precision::int4) c.notes.push_back("int4 weights: a pre-quantised AWQ or GPTQ checkpoint; --quantization names its format");
  emit_serving_notes(a, c);
  c.files.push_back({"serve_vllm.sh", command_line("vllm serve " + hf_model_name(*a.setup.ctx.model), c)});
  return c;
}

// SGLang v0.4: python/sglang/srt/server_args.py (ServerArgs.add_cli_args).
LaunchConfig emit_sglang(const InferAnswer& a) {
  emit_require_engine(a, "sglang", "sglang");
  LaunchConfig c;
  c.framework = "sglang";
  c.version = "SGLang v0.4";
  c.flag_source = "python/sglang/srt/server_args.py (sgl-project/sglang)";
  auto flag = [&](const std::string& f, auto v) { c.flags.emplace_back(f, fmt::format("{}", v)); };
  flag("--model-path", hf_model_name(*a.setup.ctx.model));
  flag("--tp-size", a.plan.tp);
  if (a.plan.pp > 1) flag("--pp-size", a.plan.pp);
  if (a.plan.ep > 1) flag("--ep-size", a.plan.ep);
  // DP attention: --dp-size ranks, attention TP = tp / dp (sglang/srt/layers/dp_attention.py).
  if (a.plan.attention_dp > 1) {
    c.flags.emplace_back("--enable-dp-attention", "");
    flag("--dp-size", a.plan.attention_dp);
  }
  flag("--context-length", emit_max_len(a));
  flag("--max-running-requests", emit_max_seqs(a));
  flag("--chunked-prefill-size", emit_max_tokens(a));
  flag("--dtype", "bfloat16");
  if (const std::string q = emit_quant_name(a.plan.weights, "fp8", "awq"); !q.empty()) flag("--quantization", q);
  if (a.plan.kv == Precision::fp8) flag("--kv-cache-dtype", "fp8_e4m3");
  emit_serving_notes(a, c);
  c.files.push_back({"serve_sglang.sh", command_line("python -m sglang.launch_server", c)});
  return c;
}

// TensorRT-LLM v0.20: tensorrt_llm/commands/serve.py (trtllm-serve's click options); the KV
// dtype goes in the LLM API options file (kv_cache_config.dtype, tensorrt_llm/llmapi/llm_args.py).
LaunchConfig emit_trtllm(const InferAnswer& a) {
  emit_require_engine(a, "trtllm", "tensorrt-llm");
  LaunchConfig c;
  c.framework = "trtllm";
  c.version = "TensorRT-LLM v0.20 (trtllm-serve, PyTorch backend)";
  c.flag_source = "tensorrt_llm/commands/serve.py and tensorrt_llm/llmapi/llm_args.py (NVIDIA/TensorRT-LLM)";
  auto flag = [&](const std::string& f, auto v) { c.flags.emplace_back(f, fmt::format("{}", v)); };
  flag("--backend", "pytorch");
  flag("--tp_size", a.plan.tp);
  if (a.plan.pp > 1) flag("--pp_size", a.plan.pp);
  if (a.plan.ep > 1) flag("--ep_size", a.plan.ep);
  flag("--max_seq_len", emit_max_len(a));
  flag("--max_batch_size", emit_max_seqs(a));
  flag("--max_num_tokens", emit_max_tokens(a));
  std::string yaml = "# trtllm-serve --extra_llm_api_options, written by gpuplan --emit trtllm\n";
  if (a.plan.kv == Precision::fp8) yaml += "kv_cache_config:\n  dtype: fp8\n";
  // enable_attention_dp replicates attention on every TP rank (attention DP = tp); TensorRT-LLM
  // has no attention TP inside a DP rank (tensorrt_llm/llmapi/llm_args.py).
  if (a.plan.attention_dp == a.plan.tp && a.plan.tp > 1) yaml += "enable_attention_dp: true\n";
  if (a.plan.attention_dp > 1 && a.plan.attention_dp != a.plan.tp)
    throw Error(fmt::format("--emit trtllm: --attention-dp {} with --tp {}: TensorRT-LLM's enable_attention_dp "
                            "replicates attention on all {} GPUs; use --attention-dp {} or 1, or --emit sglang",
                            a.plan.attention_dp, a.plan.tp, a.plan.tp, a.plan.tp));
  if (a.plan.weights == Precision::fp8 || a.plan.weights == Precision::int4 || a.plan.weights == Precision::fp4)
    c.notes.push_back(fmt::format("{} weights: serve a checkpoint quantised with TensorRT Model Optimizer (the quantisation "
                                  "is read from the checkpoint)", precision_name(a.plan.weights)));
  flag("--extra_llm_api_options", "extra_llm_api_options.yaml");
  emit_serving_notes(a, c);
  c.files.push_back({"serve_trtllm.sh", command_line("trtllm-serve " + hf_model_name(*a.setup.ctx.model), c)});
  c.files.push_back({"extra_llm_api_options.yaml", yaml});
  return c;
}

}  // namespace

const std::vector<std::string>& infer_emit_frameworks() {
  static const std::vector<std::string> names = {"vllm", "sglang", "trtllm"};
  return names;
}

LaunchConfig emit_infer(const InferAnswer& answer, const std::string& framework) {
  const std::string f = to_lower(framework);
  if (f == "vllm") return emit_vllm(answer);
  if (f == "sglang") return emit_sglang(answer);
  if (f == "trtllm" || f == "tensorrt-llm") return emit_trtllm(answer);
  throw Error(fmt::format("--emit {}: not a serving framework; choose one of {}", framework,
                          join(infer_emit_frameworks(), ", ")));
}

}  // namespace gpuplan
