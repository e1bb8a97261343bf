#include "emit/nemo_import.h"

#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "emit/launch_words.h"

namespace gpuplan {
namespace {

struct NemoOverride {
  std::string key;  // without Hydra's + / ++ prefix
  std::string value;
  int line = 0;
};

bool nemo_plan_key(std::string_view k) { return k.rfind("trainer.", 0) == 0 || k.rfind("model.", 0) == 0; }

// Every `key=value` word of the file (comments, backslash continuations and the launcher's own
// words skipped), with the line it is on.
std::vector<NemoOverride> nemo_words(std::string_view text, const std::string& where) {
  std::vector<NemoOverride> out;
  for (auto& [word, line] : launch_words(text, where, "the launch script")) {
    std::string w = word;
    while (!w.empty() && w[0] == '+') w.erase(0, 1);  // Hydra's append (+key) and force (++key)
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    NemoOverride o{w.substr(0, eq), w.substr(eq + 1), line};
    if (nemo_plan_key(o.key)) out.push_back(std::move(o));
  }
  return out;
}

[[noreturn]] void nemo_fail(const NemoOverride& o, const std::string& where, const std::string& what) {
  throw Error(fmt::format("{}:{}: {}={}: {}", where, o.line, o.key, o.value, what));
}

int nemo_int(const NemoOverride& o, const std::string& where, int lo) {
  long long v = 0;
  const char* b = o.value.data();
  const char* e = b + o.value.size();
  const auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e) nemo_fail(o, where, "expected a whole number");
  if (v < lo || v > 100'000'000) nemo_fail(o, where, fmt::format("expected a whole number >= {}", lo));
  return static_cast<int>(v);
}

bool nemo_bool(const NemoOverride& o, const std::string& where) {
  if (o.value == "true" || o.value == "True") return true;
  if (o.value == "false" || o.value == "False") return false;
  nemo_fail(o, where, "expected true or false");
}

}  // namespace

bool looks_like_nemo_overrides(std::string_view text) {
  try {
    return !nemo_words(text, "").empty();
  } catch (const Error&) {
    return false;  // the reader the caller picks reports it
  }
}

void read_nemo_overrides(std::string_view text, const std::string& where, TrainRequest& r) {
  const std::vector<NemoOverride> words = nemo_words(text, where);
  if (words.empty()) {
    throw Error(fmt::format("--from {}: no NeMo override (trainer.num_nodes=..., model.tensor_model_parallel_size=...) "
                            "in the file; give the launch script `gpuplan train ... --emit nemo` writes",
                            where));
  }
  int nodes = 0, devices = 0;
  const NemoOverride* nodes_word = nullptr;
  bool fp8 = false;
  std::string granularity, method;
  int checkpoint_layers = 1;
  for (const NemoOverride& o : words) {
    const std::string& k = o.key;
    if (k == "trainer.num_nodes") {
      nodes = nemo_int(o, where, 1);
      nodes_word = &o;
    } else if (k == "trainer.devices") {
      devices = nemo_int(o, where, 1);
    } else if (k == "trainer.precision") {
      if (o.value == "bf16-mixed" || o.value == "bf16")
        r.precision = "bf16";
      else if (o.value == "16-mixed" || o.value == "16")
        r.precision = "fp16";
      else if (o.value == "32" || o.value == "32-true")
        r.precision = "fp32";
      else
        nemo_fail(o, where, "use bf16-mixed, 16-mixed or 32");
    } else if (k == "model.tensor_model_parallel_size") {
      r.tp = nemo_int(o, where, 1);
    } else if (k == "model.pipeline_model_parallel_size") {
      r.pp = nemo_int(o, where, 1);
    } else if (k == "model.virtual_pipeline_model_parallel_size") {
      if (o.value != "null") r.vp = nemo_int(o, where, 1);
    } else if (k == "model.context_parallel_size") {
      r.cp = nemo_int(o, where, 1);
    } else if (k == "model.expert_model_parallel_size") {
      r.ep = nemo_int(o, where, 1);
    } else if (k == "model.sequence_parallel") {
      r.sp = nemo_bool(o, where);
    } else if (k == "model.micro_batch_size") {
      r.micro_batch = nemo_int(o, where, 1);
    } else if (k == "model.global_batch_size") {
      r.global_batch = nemo_int(o, where, 1);
    } else if (k == "model.encoder_seq_length") {
      r.seq_len = nemo_int(o, where, 1);
    } else if (k == "model.activations_checkpoint_granularity") {
      if (o.value != "full" && o.value != "selective" && o.value != "null")
        nemo_fail(o, where, "use full, selective or null");
      granularity = o.value;
    } else if (k == "model.activations_checkpoint_method") {
      if (o.value != "uniform" && o.value != "null")
        nemo_fail(o, where, "gpuplan models uniform full recompute (block recomputes only some layers)");
      method = o.value;
    } else if (k == "model.activations_checkpoint_num_layers") {
      if (o.value != "null") checkpoint_layers = nemo_int(o, where, 1);
      if (checkpoint_layers != 1) nemo_fail(o, where, "gpuplan models full recompute of every layer (uniform, 1)");
    } else if (k == "model.optim.name") {
      if (o.value == "distributed_fused_adam")
        r.zero = 1;
      else if (o.value == "fused_adam" || o.value == "adam" || o.value == "adamw")
        r.zero = 0;
      else
        nemo_fail(o, where, "gpuplan models distributed_fused_adam (ZeRO-1) or fused_adam");
    } else if (k == "model.fp8") {
      fp8 = nemo_bool(o, where);
    } else if (k == "model.fp8_hybrid" || k == "model.transformer_engine") {
      nemo_bool(o, where);  // the E4M3/E5M2 hybrid format and TE: what gpuplan's fp8 is
    }
    // Other keys (model.data.*, model.tokenizer.*, model.optim.lr, trainer.max_steps, exp_manager.*)
    // do not change the plan evaluated.
  }
  if (granularity == "full" || granularity == "selective") r.recompute = granularity;
  if (granularity == "null") r.recompute = "none";
  if (fp8) r.precision = "fp8";
  if (nodes > 0 || devices > 0) {
    if (nodes == 0 || devices == 0)
      throw Error(fmt::format("{}: give trainer.num_nodes and trainer.devices together (the GPUs are their product)",
                              where));
    const int gpus = nodes * devices;
    if (r.gpus && *r.gpus != gpus)
      nemo_fail(*nodes_word, where,
                fmt::format("{} nodes × {} devices = {} GPUs, but --gpus says {}: drop one", nodes, devices, gpus,
                            *r.gpus));
    r.gpus = gpus;
  }
}

}  // namespace gpuplan
