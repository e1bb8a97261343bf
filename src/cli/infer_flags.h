// The flags `gpuplan infer` and `gpuplan infer-search` share, and turning them into a model,
// GPU, engine and context. Throws Error on bad input (unknown names, bad precisions).
#pragma once

#include <memory>
#include <string>

#include "cli/args.h"
#include "infer/infer_context.h"
#include "infer/infer_plan.h"

namespace gpuplan {

class CliContext;

struct InferFlags {
  std::string model;
  std::string gpu;
  std::string engine = "vllm";
  std::string system;
  std::string weights = "bf16";
  std::string kv;  // default: 16-bit like the weights, fp8 with 8-bit or smaller weights
  long long input_len = 1024;
  long long output_len = 256;
  std::string calibration;  // gpuplan-bench profile of this GPU
  bool json = false;
};

struct InferSetup {
  std::shared_ptr<ModelSpec> owned_model;  // when read from a config.json
  InferContext ctx;
  Precision weights = Precision::bf16;
  Precision kv = Precision::bf16;
  std::vector<std::string> calibration_notes;  // what --calibration changed, and what it could not
};

void add_infer_flags(CliCommand& cmd, InferFlags& f);
InferSetup make_infer_setup(CliContext& cli, const InferFlags& f);
Precision parse_weight_precision(const std::string& text);
Precision parse_kv_precision(const std::string& text);

}  // namespace gpuplan
