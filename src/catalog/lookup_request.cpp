#include "catalog/lookup_request.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/strings.h"

namespace gpuplan {

GpusAnswer answer_gpus(const Catalog& catalog, const GpusRequest& request) {
  GpusAnswer answer;
  std::vector<std::string> vendors;
  for (const Gpu& g : catalog.gpus) {
    if (std::find(vendors.begin(), vendors.end(), g.vendor) == vendors.end()) vendors.push_back(g.vendor);
    if (!request.vendor.empty() && to_lower(g.vendor) != to_lower(request.vendor)) continue;
    if (request.gpus_only && !g.is_gpu()) continue;
    answer.gpus.push_back(&g);
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
  for (const auto& n : request.names) answer.gpus.push_back(&catalog.gpu(n));
  return answer;
}

SystemAnswer answer_system(const Catalog& catalog, const SystemRequest& request) {
  SystemAnswer answer;
  answer.catalog = &catalog;
  answer.system = catalog.find_system(request.name);
  if (!answer.system) answer.fabric = catalog.find_fabric(request.name);
  if (answer.system || answer.fabric) return answer;
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

ModelsAnswer answer_models(const Catalog& catalog) {
  ModelsAnswer answer;
  for (const ModelSpec& m : catalog.models) answer.models.push_back(&m);
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
  return {&model, request.seq_len.value_or(default_seq_len(model))};
}

}  // namespace gpuplan
