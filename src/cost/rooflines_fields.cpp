#include "cost/rooflines_fields.h"

namespace gpuplan {

// In the order `gpuplan rooflines --help` lists them.
const std::vector<FieldSpec<RooflinesRequest>>& rooflines_fields() {
  using R = RooflinesRequest;
  static const std::vector<FieldSpec<R>> fields{
      {"gpu", GP_FIELD(R, gpu), "", "",
       "GPU whose peak sets C (default: the system's); may differ from the system's GPU for what-ifs (H100 "
       "compute on NVL72 bandwidth)"},
      {"system", GP_FIELD(R, system), "", "", "Node or rack (default: the fabric's, or the catalog's for the GPU)"},
      {"fabric", GP_FIELD(R, fabric), "", "", "Fabric above the nodes (e.g. dgx-superpod-h100)"},
      {"precision", GP_FIELD(R, precision), "", "bf16, fp16, fp8", "Precision of the peak C", kShowDefault},
      {"ffn", GP_FIELD(R, ffn), "", "", "MLP width F for the TP bound", kShowDefault},
      {"experts", GP_FIELD(R, experts), "", "", "Routed experts E (MoE bound)", kShowDefault},
      {"topk", GP_FIELD(R, topk), "", "", "Experts per token k", kShowDefault},
      {"ep", GP_FIELD(R, ep), "", "", "Expert-parallel degree Y", kShowDefault},
  };
  return fields;
}

}  // namespace gpuplan
