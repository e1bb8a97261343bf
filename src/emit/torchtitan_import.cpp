#include "emit/torchtitan_import.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/input_file.h"

namespace gpuplan {
namespace {

struct TitanReader {
  const std::string& where;
  const toml::table& root;

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(fmt::format("{}: torchtitan key '{}': {}", where, key, what));
  }
  const toml::table* section(const char* name) const {
    const toml::node* n = root.get(name);
    if (!n) return nullptr;
    if (!n->is_table()) fail(name, "expected a [table]");
    return n->as_table();
  }
  long long integer(const toml::table* t, const char* sect, const char* key, long long fallback) const {
    if (!t) return fallback;
    const toml::node* n = t->get(key);
    if (!n) return fallback;
    if (!n->is_integer()) fail(fmt::format("{}.{}", sect, key), "expected a whole number");
    return n->as_integer()->get();
  }
  std::string text(const toml::table* t, const char* sect, const char* key, const std::string& fallback) const {
    if (!t) return fallback;
    const toml::node* n = t->get(key);
    if (!n) return fallback;
    if (!n->is_string()) fail(fmt::format("{}.{}", sect, key), "expected a string");
    return n->as_string()->get();
  }
  bool boolean(const toml::table* t, const char* sect, const char* key, bool fallback) const {
    if (!t) return fallback;
    const toml::node* n = t->get(key);
    if (!n) return fallback;
    if (!n->is_boolean()) fail(fmt::format("{}.{}", sect, key), "expected true or false");
    return n->as_boolean()->get();
  }
};

int positive_degree(const TitanReader& r, const char* key, long long v) {
  if (v < 1 || v > 1'000'000) r.fail(fmt::format("parallelism.{}", key), fmt::format("{} is not a degree >= 1", v));
  return static_cast<int>(v);
}

}  // namespace

void read_torchtitan_toml(std::string_view text, const std::string& where, int model_layers, TrainRequest& req) {
  toml::table root;
  try {
    root = toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}:{}:{}: {}", where, e.source().begin.line, e.source().begin.column, e.description()));
  }
  const TitanReader r{where, root};
  const toml::table* par = r.section("parallelism");
  const toml::table* train = r.section("training");
  const toml::table* ac = r.section("activation_checkpoint");
  // A TOML with none of torchtitan's tables (a gpuplan catalog file) is not a job.
  const bool titan_table = par || train || ac || root.contains("compile") || root.contains("job") ||
                           root.contains("model") || root.contains("float8");
  if (!titan_table) {
    throw Error(fmt::format("--from {}: no torchtitan table ([parallelism], [training], ...), so not a torchtitan "
                            "job TOML (a gpuplan catalog file goes to --catalog); give a job TOML such as `gpuplan "
                            "train ... --emit torchtitan` writes",
                            where));
  }

  // Keys that change the plan in ways gpuplan does not model.
  if (par) {
    for (const char* key : {"pipeline_parallel_split_points", "module_fqns_per_model_part"}) {
      if (par->get(key))
        r.fail(fmt::format("parallelism.{}", key), "a custom pipeline split: gpuplan splits layers evenly");
    }
    if (r.integer(par, "parallelism", "expert_tensor_parallel_degree", 1) != 1) {
      r.fail("parallelism.expert_tensor_parallel_degree", "gpuplan models expert TP 1 only");
    }
    // One layer fewer on the first and last stages is Megatron's embedding/head slots.
    const long long first = r.integer(par, "parallelism", "pipeline_parallel_first_stage_less_layers", 0);
    const long long last = r.integer(par, "parallelism", "pipeline_parallel_last_stage_less_layers", 0);
    if (first != last || first < 0 || first > 1) {
      r.fail("parallelism.pipeline_parallel_first_stage_less_layers",
             fmt::format("first {} / last {}: gpuplan models 0/0 or 1/1 (embedding and head slots)", first, last));
    }
    req.pp_embedding_head_slots = first == 1;
  }
  req.tp = positive_degree(r, "tensor_parallel_degree", r.integer(par, "parallelism", "tensor_parallel_degree", 1));
  req.pp = positive_degree(r, "pipeline_parallel_degree", r.integer(par, "parallelism", "pipeline_parallel_degree", 1));
  req.cp = positive_degree(r, "context_parallel_degree", r.integer(par, "parallelism", "context_parallel_degree", 1));
  req.ep = positive_degree(r, "expert_parallel_degree", r.integer(par, "parallelism", "expert_parallel_degree", 1));
  const int replicate = positive_degree(r, "data_parallel_replicate_degree",
                                        r.integer(par, "parallelism", "data_parallel_replicate_degree", 1));
  long long shard = r.integer(par, "parallelism", "data_parallel_shard_degree", -1);
  if (shard == -1) {
    const int mp = replicate * req.tp * req.pp * req.cp;
    if (!req.gpus) {
      r.fail("parallelism.data_parallel_shard_degree",
             "-1 fills the GPUs left over: give --gpus, or write the degree in the file");
    }
    if (*req.gpus % mp != 0) {
      r.fail("parallelism.data_parallel_shard_degree",
             fmt::format("-1 with --gpus {}: not a multiple of replicate × tp × pp × cp = {}", *req.gpus, mp));
    }
    shard = *req.gpus / mp;
  }
  const int s = positive_degree(r, "data_parallel_shard_degree", shard);
  req.dp = replicate * s;
  req.zero = s > 1 ? 3 : 0;
  if (s > 1 && replicate > 1) req.dp_shard = s;  // else all of dp

  const long long local = r.integer(train, "training", "local_batch_size", 8);
  if (local < 1) r.fail("training.local_batch_size", fmt::format("{} is not a batch size >= 1", local));
  if (req.pp > 1) {
    const long long mb = r.integer(par, "parallelism", "pipeline_parallel_microbatch_size", 1);
    if (mb < 1 || local % mb != 0) {
      r.fail("parallelism.pipeline_parallel_microbatch_size",
             fmt::format("{} must be >= 1 and divide training.local_batch_size {}", mb, local));
    }
    req.micro_batch = static_cast<int>(mb);
    const std::string schedule = r.text(par, "parallelism", "pipeline_parallel_schedule", "1F1B");
    if (schedule == "1F1B") {
      req.vp = 1;
    } else if (schedule == "Interleaved1F1B") {
      const long long per_stage = r.integer(par, "parallelism", "pipeline_parallel_layers_per_stage", 0);
      if (per_stage < 1 || model_layers % (req.pp * per_stage) != 0) {
        r.fail("parallelism.pipeline_parallel_layers_per_stage",
               fmt::format("Interleaved1F1B needs it, dividing the {} layers into pp {} × whole virtual stages",
                           model_layers, req.pp));
      }
      req.vp = static_cast<int>(model_layers / (req.pp * per_stage));
    } else {
      r.fail("parallelism.pipeline_parallel_schedule",
             fmt::format("'{}': gpuplan models 1F1B and Interleaved1F1B", schedule));
    }
  } else {
    req.micro_batch = static_cast<int>(local);
    req.vp = 1;
  }
  const long long global = r.integer(train, "training", "global_batch_size", -1);
  const long long per_step = local * req.dp.value_or(1);
  if (global == -1) {
    req.global_batch = static_cast<int>(per_step);
  } else if (global < 1 || global % per_step != 0) {
    r.fail("training.global_batch_size",
           fmt::format("{} must be a multiple of local_batch_size × dp = {}", global, per_step));
  } else {
    req.global_batch = static_cast<int>(global);
  }
  const long long seq = r.integer(train, "training", "seq_len", 2048);
  if (seq < 1) r.fail("training.seq_len", fmt::format("{} is not a length >= 1", seq));
  req.seq_len = static_cast<int>(seq);
  const std::string param = r.text(train, "training", "mixed_precision_param", "bfloat16");
  if (param == "bfloat16") {
    req.precision = "bf16";
  } else if (param == "float16") {
    req.precision = "fp16";
  } else if (param == "float32") {
    req.precision = "fp32";
  } else {
    r.fail("training.mixed_precision_param", fmt::format("'{}': use bfloat16, float16 or float32", param));
  }
  // Float8 linear layers: the float8 converter, or a [float8] section (torchtitan v0.1 spelling).
  bool fp8 = r.section("float8") != nullptr;
  if (const toml::table* model = r.section("model")) {
    if (const toml::array* conv = model->get_as<toml::array>("converters")) {
      for (const auto& c : *conv) {
        if (c.is_string() && c.as_string()->get() == "float8") fp8 = true;
      }
    }
  }
  if (fp8) req.precision = "fp8";
  const std::string mode = r.text(ac, "activation_checkpoint", "mode", "selective");
  if (mode != "none" && mode != "selective" && mode != "full") {
    r.fail("activation_checkpoint.mode", fmt::format("'{}': use none, selective or full", mode));
  }
  req.recompute = mode;
  req.sp = req.tp > 1;  // torchtitan's TP plan shards the norms' sequence (no separate switch)
  // torch.compile: `[compile] enable` (torchtitan v0.1 job_config.py Compile), `training.compile`
  // before it; off by default, and then the model's RMSNorm, RoPE and SwiGLU run op by op
  // (Plan::eager_elementwise, workload/eager_elementwise.h).
  const bool compiled = r.boolean(r.section("compile"), "compile", "enable", false) ||
                        r.boolean(train, "training", "compile", false);
  req.elementwise = compiled ? "fused" : "eager";
  if (req.framework.empty()) req.framework = "torchtitan";  // data/fitted/frameworks/pytorch-fsdp.toml alias
}

void read_torchtitan_toml_file(const std::string& path, int model_layers, TrainRequest& request) {
  read_torchtitan_toml(read_input_file(path, "--from"), path, model_layers, request);
}

}  // namespace gpuplan
