#include "catalog/lookup_request.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/field_error.h"
#include "core/strings.h"
#include "workload/kv_cache.h"

namespace gpuplan {

GpusAnswer answer_gpus(const Catalog& catalog, const GpusRequest& request) {
  GpusAnswer answer;
  std::vector<std::string> vendors;
  for (const Gpu& g : catalog.gpus) {
    if (std::find(vendors.begin(), vendors.end(), g.vendor) == vendors.end()) vendors.push_back(g.vendor);
    if (!request.vendor.empty() && to_lower(g.vendor) != to_lower(request.vendor)) continue;
    if (request.gpus_only && !g.is_gpu()) continue;
    answer.gpus.push_back(&g);
    answer.derived.push_back(derive_gpu(g));
  }
  if (answer.gpus.empty() && !request.vendor.empty()) {
    throw Error("--vendor: " + unknown_name_message("vendor", request.vendor, vendors));
  }
  return answer;
}

CompareAnswer answer_compare(const Catalog& catalog, const CompareRequest& request) {
  if (request.names.size() < 2) {
    throw Error(fmt::format("compare {}: needs at least two GPUs, e.g. 'gpuplan compare h100-sxm b200'",
                            join(request.names, " ")));
  }
  CompareAnswer answer;
  for (const auto& n : request.names) {
    answer.gpus.push_back(&catalog.gpu(n));
    answer.derived.push_back(derive_gpu(*answer.gpus.back()));
  }
  return answer;
}

namespace {

// The figures `system` and `systems` print about one system or fabric.
SystemAnswer system_figures_answer(const Catalog& catalog, const System* system, const Fabric* fabric) {
  SystemAnswer answer;
  answer.catalog = &catalog;
  answer.system = system;
  answer.fabric = fabric;
  if (system) {
    answer.figures = system_figures(*system, catalog);
    const Switch* sw = system->nvswitch.empty() ? nullptr : catalog.find_switch(system->nvswitch);
    answer.levels = bandwidth_levels(*system, sw, nullptr);
    for (const Fabric& f : catalog.fabrics) {
      if (catalog.find_system(f.system) == system) answer.fabric_ids.push_back(f.id);
    }
  } else {
    answer.levels = fabric_levels(*fabric, catalog);
  }
  return answer;
}

}  // namespace

SystemsAnswer answer_systems(const Catalog& catalog) {
  SystemsAnswer answer;
  for (const System& s : catalog.systems) answer.systems.push_back(system_figures_answer(catalog, &s, nullptr));
  for (const Fabric& f : catalog.fabrics) answer.fabrics.push_back(system_figures_answer(catalog, nullptr, &f));
  return answer;
}

SystemAnswer answer_system(const Catalog& catalog, const SystemRequest& request) {
  if (request.name.empty()) {
    throw FieldError("name", "name is required: a system or fabric id or alias (see 'gpuplan systems')");
  }
  const System* system = catalog.find_system(request.name);
  const Fabric* fabric = system ? nullptr : catalog.find_fabric(request.name);
  if (system || fabric) return system_figures_answer(catalog, system, fabric);
  // Neither: suggest from both lists, each entry once by its id.
  std::vector<std::string> names;
  for (const System& s : catalog.systems) {
    names.push_back(s.id);
    names.insert(names.end(), s.aliases.begin(), s.aliases.end());
  }
  for (const Fabric& f : catalog.fabrics) {
    names.push_back(f.id);
    names.insert(names.end(), f.aliases.begin(), f.aliases.end());
  }
  std::vector<std::string> ids;
  for (const auto& near : nearest_names(request.name, names, names.size())) {
    const System* s = catalog.find_system(near);
    const std::string id = s ? s->id : catalog.find_fabric(near)->id;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    if (ids.size() == 3) break;
  }
  std::string msg = fmt::format("unknown system or fabric '{}'", request.name);
  if (!ids.empty()) msg += fmt::format("; did you mean {}?", join(ids, ", "));
  throw Error(msg);
}

CloudsAnswer answer_clouds(const Catalog& catalog, const CloudsRequest& request) {
  const Gpu* gpu = nullptr;
  if (!request.gpu.empty()) {
    try {
      gpu = &catalog.gpu(request.gpu);
    } catch (const Error& e) {
      throw Error(fmt::format("--gpu: {}", e.what()));
    }
  }
  std::vector<std::string> providers;
  for (const CloudOffer& o : catalog.offers) {
    if (std::find(providers.begin(), providers.end(), o.provider) == providers.end()) providers.push_back(o.provider);
  }
  if (!request.provider.empty() && std::none_of(providers.begin(), providers.end(), [&](const std::string& p) {
        return normalize_name(p) == normalize_name(request.provider);
      })) {
    std::sort(providers.begin(), providers.end());
    throw Error(fmt::format("--provider: unknown provider '{}'; known providers: {}", request.provider,
                            join(providers, ", ")));
  }
  CloudsAnswer answer;
  for (const CloudOffer& o : catalog.offers) {
    if (o.historical && !request.all) continue;
    if (gpu && catalog.find_gpu(o.gpu) != gpu) continue;
    if (!request.provider.empty() && normalize_name(o.provider) != normalize_name(request.provider)) continue;
    answer.offers.push_back(&o);
  }
  // Cheapest first within each GPU, so the first row answers "where is it cheapest".
  std::stable_sort(answer.offers.begin(), answer.offers.end(), [&](const CloudOffer* a, const CloudOffer* b) {
    const std::string& ga = catalog.gpu(a->gpu).id;
    const std::string& gb = catalog.gpu(b->gpu).id;
    if (ga != gb) return ga < gb;
    return a->usd_per_gpu_hour < b->usd_per_gpu_hour;
  });
  return answer;
}

ModelFigures model_figures(const ModelSpec& m, std::int64_t seq_len) {
  ModelFigures f;
  f.params = count_params(m);
  f.seq_len = seq_len;
  for (std::int64_t i = 0; i < m.layers; ++i) {
    f.sliding_layers += m.is_sliding_layer(i) ? 1 : 0;
    f.mamba_layers += m.is_mamba_layer(i) ? 1 : 0;
    f.attention_layers += m.is_attention_layer(i) ? 1 : 0;
  }
  if (m.mamba.version > 0) f.recurrent_state_bytes_per_seq = recurrent_state_bytes_per_seq_per_gpu(make_kv_shape(m), 1, 1);
  f.mamba_scan_flops_per_token = mamba_scan_flops_per_token(m);
  f.attention_flops_per_token = attention_flops_per_token(m, seq_len);
  f.forward_flops_per_token = forward_flops_per_token(m, seq_len);
  f.train_flops_per_token = train_flops_per_token(m, seq_len);
  f.decode_flops_per_token = decode_flops_per_token(m, seq_len);
  for (Precision p : {Precision::bf16, Precision::fp8, Precision::int4}) {
    f.weight_bytes.emplace_back(p, f.params.total * precision_bytes(p));
  }
  for (Precision p : {Precision::bf16, Precision::fp8}) {
    f.kv_cache_bytes_per_token.emplace_back(p, kv_cache_bytes_per_token(m, p));
    f.kv_cache_bytes_per_sequence.emplace_back(p, kv_cache_bytes(m, seq_len, p));
  }
  return f;
}

ModelsAnswer answer_models(const Catalog& catalog) {
  ModelsAnswer answer;
  for (const ModelSpec& m : catalog.models) {
    answer.models.push_back(&m);
    answer.figures.push_back(model_figures(m, default_seq_len(m)));
  }
  return answer;
}

std::int64_t default_seq_len(const ModelSpec& m) {
  constexpr std::int64_t kDefault = 4096;
  return m.max_seq_len > 0 ? std::min(kDefault, m.max_seq_len) : kDefault;
}

ModelAnswer answer_model(const ModelSpec& model, const ModelRequest& request) {
  // 2^31 tokens: far past any context window, and small enough that FLOPs and KV bytes stay finite.
  constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 31;
  if (request.seq_len && (*request.seq_len < 1 || *request.seq_len > kMaxSeqLen)) {
    throw Error(fmt::format("--seq-len {}: must be between 1 and {} tokens", *request.seq_len, kMaxSeqLen));
  }
  const std::int64_t seq_len = request.seq_len.value_or(default_seq_len(model));
  return {&model, seq_len, model_figures(model, seq_len)};
}

}  // namespace gpuplan
