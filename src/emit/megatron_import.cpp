#include "emit/megatron_import.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "emit/launch_words.h"
#include "workload/model.h"

namespace gpuplan {
namespace {

struct ArgToken {
  std::string flag;
  std::string value;  // "" for a switch
  int line = 0;
};

bool megatron_is_flag(const std::string& t) { return t.size() > 2 && t[0] == '-' && t[1] == '-'; }

// "--flag value" / "--flag=value" / "--switch", with the line each flag is on.
std::vector<ArgToken> megatron_tokens(std::string_view text, const std::string& where) {
  const std::vector<std::pair<std::string, int>> words = launch_words(text, where, "the argument list");
  // A launch line: the launcher and its flags come before the script (torchrun ... pretrain_gpt.py).
  std::size_t first = 0;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i].first;
    if (!megatron_is_flag(w) && w.size() > 3 && w.compare(w.size() - 3, 3, ".py") == 0) {
      first = i + 1;
      break;
    }
  }
  std::vector<ArgToken> out;
  for (std::size_t i = first; i < words.size(); ++i) {
    const auto& [w, l] = words[i];
    if (!megatron_is_flag(w)) {
      // The program and launcher words before the first flag (torchrun ..., pretrain_gpt.py).
      if (out.empty()) continue;
      throw Error(fmt::format("{}:{}: '{}' follows {} {}, which takes no value (or a second value)", where, l, w,
                              out.back().flag, out.back().value));
    }
    ArgToken t;
    t.line = l;
    if (const auto eq = w.find('='); eq != std::string::npos) {
      t.flag = w.substr(0, eq);
      t.value = w.substr(eq + 1);
    } else {
      t.flag = w;
      if (i + 1 < words.size() && !megatron_is_flag(words[i + 1].first)) t.value = words[++i].first;
    }
    out.push_back(t);
  }
  return out;
}

long long megatron_int(const ArgToken& t, const std::string& where) {
  long long v = 0;
  const char* b = t.value.data();
  const char* e = b + t.value.size();
  const auto [p, ec] = std::from_chars(b, e, v);
  if (t.value.empty() || ec != std::errc() || p != e || v < 1 || v > 1'000'000'000)
    throw Error(fmt::format("{}:{}: {} '{}': expected a whole number ≥ 1", where, t.line, t.flag, t.value));
  return v;
}

int megatron_int32(const ArgToken& t, const std::string& where) {
  const long long v = megatron_int(t, where);
  if (v > 1'000'000) throw Error(fmt::format("{}:{}: {} {}: too large", where, t.line, t.flag, v));
  return static_cast<int>(v);
}

void megatron_switch(const ArgToken& t, const std::string& where) {
  if (!t.value.empty())
    throw Error(fmt::format("{}:{}: {} takes no value (got '{}')", where, t.line, t.flag, t.value));
}

// Flags that change the plan but that gpuplan's plan cannot express: reading past them would
// evaluate a different job than the one the file runs.
const std::vector<std::string>& megatron_unmodelled() {
  static const std::vector<std::string> flags = {
      "--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers", "--pipeline-model-parallel-layout",
      "--expert-tensor-parallel-size", "--num-experts", "--moe-router-topk", "--hierarchical-context-parallel-sizes",
      "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split", "--recompute-modules",
      "--cpu-offloading", "--use-custom-fsdp", "--data-parallel-sharding-strategy", "--fp8-param-gather",
      "--first-last-layers-bf16", "--virtual-pipeline-model-parallel-size"};
  return flags;
}

// The shape flags (checked against the model, never a plan field).
bool megatron_shape_flag(const std::string& f) {
  return f == "--num-layers" || f == "--hidden-size" || f == "--ffn-hidden-size" || f == "--num-attention-heads" ||
         f == "--num-query-groups" || f == "--group-query-attention" || f == "--max-position-embeddings";
}

}  // namespace

void read_megatron_args(std::string_view text, const std::string& where, TrainRequest& r) {
  const std::vector<ArgToken> tokens = megatron_tokens(text, where);
  long long layers = 0, vp_layers = 0;
  std::string recompute_method;
  bool fsdp = false, distributed_optimizer = false;
  int optimizer_instances = 1;
  for (const ArgToken& t : tokens) {
    const std::string& f = t.flag;
    for (const std::string& u : megatron_unmodelled())
      if (f == u)
        throw Error(fmt::format("{}:{}: {} changes the plan in a way gpuplan does not model; remove it to evaluate "
                                "the nearest plan gpuplan can", where, t.line, f));
    if (f == "--tensor-model-parallel-size") {
      r.tp = megatron_int32(t, where);
    } else if (f == "--pipeline-model-parallel-size") {
      r.pp = megatron_int32(t, where);
    } else if (f == "--num-layers-per-virtual-pipeline-stage") {
      vp_layers = megatron_int(t, where);
    } else if (f == "--context-parallel-size") {
      r.cp = megatron_int32(t, where);
    } else if (f == "--expert-model-parallel-size") {
      r.ep = megatron_int32(t, where);
    } else if (f == "--sequence-parallel") {
      megatron_switch(t, where);
      r.sp = true;
    } else if (f == "--micro-batch-size") {
      r.micro_batch = megatron_int32(t, where);
    } else if (f == "--global-batch-size") {
      r.global_batch = megatron_int32(t, where);
    } else if (f == "--seq-length") {
      r.seq_len = megatron_int32(t, where);
    } else if (f == "--use-distributed-optimizer") {
      megatron_switch(t, where);
      distributed_optimizer = true;
    } else if (f == "--num-distributed-optimizer-instances") {
      optimizer_instances = megatron_int32(t, where);
    } else if (f == "--use-torch-fsdp2") {
      megatron_switch(t, where);
      fsdp = true;
    } else if (f == "--recompute-granularity") {
      if (t.value != "selective" && t.value != "full")
        throw Error(fmt::format("{}:{}: --recompute-granularity '{}': selective or full", where, t.line, t.value));
      r.recompute = t.value;
    } else if (f == "--recompute-method") {
      recompute_method = t.value;
      if (t.value != "uniform" && t.value != "block")
        throw Error(fmt::format("{}:{}: --recompute-method '{}': uniform or block", where, t.line, t.value));
    } else if (f == "--recompute-num-layers") {
      if (megatron_int(t, where) != 1)
        throw Error(fmt::format("{}:{}: --recompute-num-layers {}: gpuplan models full recompute of every layer "
                                "(uniform, 1)", where, t.line, t.value));
    } else if (f == "--bf16") {
      megatron_switch(t, where);
      if (r.precision != "fp8" && r.precision != "fp4") r.precision = "bf16";
    } else if (f == "--fp16") {
      megatron_switch(t, where);
      if (r.precision != "fp8" && r.precision != "fp4") r.precision = "fp16";
    } else if (f == "--fp8-format") {
      if (t.value != "hybrid" && t.value != "e4m3")
        throw Error(fmt::format("{}:{}: --fp8-format '{}': hybrid or e4m3", where, t.line, t.value));
      if (r.precision != "fp4") r.precision = "fp8";
    } else if (f == "--fp8-recipe") {
      r.fp8_recipe = t.value;  // checked with the plan (train_request.cpp), as --fp8-recipe
    } else if (f == "--fp4-format") {
      if (t.value != "e2m1") throw Error(fmt::format("{}:{}: --fp4-format '{}': e2m1", where, t.line, t.value));
      r.precision = "fp4";
    } else if (f == "--fp4-recipe") {
      if (t.value != "nvfp4")
        throw Error(fmt::format("{}:{}: --fp4-recipe '{}': gpuplan models nvfp4 (mxfp4 training is not modelled)",
                                where, t.line, t.value));
    } else if (f == "--tp-comm-overlap") {
      megatron_switch(t, where);
      r.tp_overlap = true;
    } else if (f == "--optimizer-cpu-offload") {
      megatron_switch(t, where);
      r.offload_optimizer = true;
    } else if (f == "--num-layers") {
      layers = megatron_int(t, where);
    } else if (megatron_shape_flag(f)) {
      // checked against the model by check_megatron_shape
    }
    // Anything else (data, tokenizer, optimiser hyper-parameters, logging, checkpoints,
    // --overlap-grad-reduce, --overlap-param-gather) does not change the plan evaluated.
  }
  if (recompute_method == "block") throw Error(where + ": --recompute-method block: gpuplan models uniform full recompute");
  if (fsdp && distributed_optimizer)
    throw Error(where + ": --use-torch-fsdp2 and --use-distributed-optimizer together: give one");
  r.zero = fsdp ? 3 : distributed_optimizer ? 1 : 0;
  if (optimizer_instances > 1) {
    // Optimizer copies across DP: the sharding group is dp / instances, so dp must be known.
    if (!distributed_optimizer) throw Error(where + ": --num-distributed-optimizer-instances needs --use-distributed-optimizer");
    const long long model_gpus = static_cast<long long>(r.tp) * r.pp * r.cp;
    const long long dp = r.dp ? *r.dp : r.gpus ? *r.gpus / model_gpus : 0;
    if (dp <= 0) throw Error(where + ": --num-distributed-optimizer-instances: give --gpus (or --dp) so the sharding group is known");
    if (dp % optimizer_instances != 0)
      throw Error(fmt::format("{}: --num-distributed-optimizer-instances {} does not divide dp {}", where,
                              optimizer_instances, dp));
    r.dp_shard = static_cast<int>(dp / optimizer_instances);
  }
  if (vp_layers > 0) {
    if (layers == 0) throw Error(where + ": --num-layers-per-virtual-pipeline-stage needs --num-layers");
    const long long per_rank = layers / r.pp;
    if (layers % r.pp != 0 || per_rank % vp_layers != 0)
      throw Error(fmt::format("{}: --num-layers-per-virtual-pipeline-stage {}: does not divide the {} layers of each of "
                              "the {} pipeline stages", where, vp_layers, per_rank, r.pp));
    r.vp = static_cast<int>(per_rank / vp_layers);
  }
  // A file with none of the plan's flags (a system TOML, a log) is not a job: refuse it rather
  // than evaluate the command line's plan as if the file had said it.
  static const char* const kPlanFlags[] = {
      "--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--context-parallel-size",
      "--expert-model-parallel-size", "--micro-batch-size", "--global-batch-size", "--seq-length", "--num-layers",
      "--hidden-size", "--num-attention-heads"};
  const bool has_plan_flag = std::any_of(tokens.begin(), tokens.end(), [](const ArgToken& t) {
    return std::find(std::begin(kPlanFlags), std::end(kPlanFlags), t.flag) != std::end(kPlanFlags);
  });
  if (!has_plan_flag) {
    throw Error(fmt::format("--from {}: no Megatron-LM plan flags in the file (--tensor-model-parallel-size, "
                            "--micro-batch-size, --global-batch-size, --seq-length, ...); give the argument list of "
                            "pretrain_gpt.py (e.g. what `gpuplan train ... --emit megatron` writes), or a torchtitan "
                            "job *.toml",
                            where));
  }
}

MegatronShape megatron_shape(std::string_view text, const std::string& where) {
  MegatronShape s;
  for (const ArgToken& t : megatron_tokens(text, where)) {
    if (t.flag == "--num-layers") s.layers = megatron_int(t, where);
    if (t.flag == "--hidden-size") s.hidden = megatron_int(t, where);
    if (t.flag == "--ffn-hidden-size") s.ffn_hidden = megatron_int(t, where);
    if (t.flag == "--num-attention-heads") s.heads = megatron_int(t, where);
    if (t.flag == "--num-query-groups") s.query_groups = megatron_int(t, where);
  }
  return s;
}

void check_megatron_shape(const MegatronShape& s, const ModelSpec& m, const std::string& where) {
  auto check = [&](const char* flag, long long got, long long want) {
    if (got != 0 && got != want)
      throw Error(fmt::format("{}: {} {} but {} has {}: name the model the file trains with --model", where, flag, got,
                              m.id, want));
  };
  check("--num-layers", s.layers, m.layers);
  check("--hidden-size", s.hidden, m.hidden);
  check("--ffn-hidden-size", s.ffn_hidden, m.ffn_hidden);
  check("--num-attention-heads", s.heads, m.heads);
  check("--num-query-groups", s.query_groups, m.kv_heads);
}

}  // namespace gpuplan
