#include "cost/rooflines_request.h"

#include <fmt/format.h>

#include "catalog/system_choice.h"
#include "core/error.h"
#include "core/field_error.h"
#include "cost/rooflines_fields.h"

namespace gpuplan {

RooflinesAnswer answer_rooflines(const Catalog& catalog, const RooflinesRequest& r) {
  // "inf" and "nan" pass `value > 0`: the table's number rules first (core/field_spec.h).
  check_field_numbers(r, rooflines_fields(), FieldNumberRule::kFiniteNumbers);
  auto positive = [](const char* field, double value) {
    if (!(value > 0)) throw FieldError(field, fmt::format("--{} {}: must be positive", field, value));
  };
  positive("ffn", r.ffn);
  positive("experts", r.experts);
  positive("topk", r.topk);
  if (r.ep < 1) throw FieldError("ep", fmt::format("--ep {}: must be at least 1 (1 = no expert parallelism)", r.ep));
  check_field_numbers(r, rooflines_fields(), FieldNumberRule::kNoNegativeNumbers);

  // The links come from the named system or fabric; --gpu then only sets the peak C, so it
  // may be another GPU than the system's (a what-if), and is not checked against it.
  ClusterQuery query;
  query.system = r.system;
  query.fabric = r.fabric;
  query.gpu = r.system.empty() && r.fabric.empty() ? r.gpu : "";
  query.needs_system = true;
  const ClusterChoice cluster = choose_cluster(catalog, query);
  RooflinesAnswer a;
  a.gpu = r.gpu.empty() ? cluster.gpu : &catalog.gpu(r.gpu);
  a.system = cluster.system;
  a.fabric = cluster.fabric;
  const auto precision = parse_precision(r.precision);
  if (!precision || a.gpu->dense(*precision) <= 0) {
    throw FieldError("precision", fmt::format("--precision '{}': {} has no dense peak for it; use bf16, fp16 or fp8", r.precision,
                            a.gpu->id));
  }
  a.precision = *precision;
  a.inputs.flops_per_s = a.gpu->dense(*precision);
  a.inputs.ffn = r.ffn;
  a.inputs.experts = r.experts;
  a.inputs.top_k = r.topk;
  a.inputs.ep = r.ep;
  const Switch* sw = a.system->nvswitch.empty() ? nullptr : catalog.find_switch(a.system->nvswitch);
  const auto levels = bandwidth_levels(*a.system, sw, a.fabric);
  a.levels = scaling_rooflines(levels, a.system->in_network_reduction, a.fabric && a.fabric->in_network_reduction,
                               a.inputs);
  return a;
}

}  // namespace gpuplan
