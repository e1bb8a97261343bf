#include "catalog/lookup_fields.h"

namespace gpuplan {

// In the order `--help` lists them.
const std::vector<FieldSpec<GpusRequest>>& gpus_fields() {
  using R = GpusRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"vendor", GP_FIELD(R, vendor), "", "", "Only this vendor (NVIDIA, AMD, Intel, Google, AWS)"},
      {"gpus_only", GP_FIELD(R, gpus_only), "", "", "Leave out the non-GPU comparison rows (TPU, Gaudi, Trainium)"},
  };
  return fields;
}

const std::vector<FieldSpec<SystemRequest>>& system_fields() {
  using R = SystemRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"name", GP_FIELD(R, name), "", "", "System or fabric id or alias (see 'gpuplan systems')", kRequired},
  };
  return fields;
}

const std::vector<FieldSpec<CloudsRequest>>& clouds_fields() {
  using R = CloudsRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"gpu", GP_FIELD(R, gpu), "", "", "Only offers for this GPU (id or alias)"},
      {"provider", GP_FIELD(R, provider), "", "", "Only this provider (aws, gcp, azure, lambda, coreweave, ...)"},
      {"all", GP_FIELD(R, all), "", "", "Include historical (superseded) prices"},
  };
  return fields;
}

}  // namespace gpuplan
