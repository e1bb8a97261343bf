#include "core/verdict.h"

#include "core/short_copy.h"

namespace gpuplan {

const char* bottleneck_name(Bottleneck b) {
  switch (b) {
    case Bottleneck::compute: return "compute";
    case Bottleneck::pipeline_bubble: return "pipeline bubble";
    case Bottleneck::tp_comm: return "TP communication";
    case Bottleneck::cp_comm: return "CP communication";
    case Bottleneck::ep_comm: return "EP communication";
    case Bottleneck::pp_comm: return "PP communication";
    case Bottleneck::dp_comm: return "DP communication";
    case Bottleneck::optimizer: return "optimizer step";
    case Bottleneck::memory: return "memory (does not fit)";
    case Bottleneck::weights_bandwidth: return "weights bandwidth";
    case Bottleneck::kv_bandwidth: return "KV bandwidth";
    case Bottleneck::communication: return "communication";
    case Bottleneck::engine_overhead: return "engine overhead";
    case Bottleneck::activation_bandwidth: return "activation bandwidth";
    case Bottleneck::capacity: return "capacity";
  }
  return "?";
}

void Infeasibility::set(Kind kind, std::string_view reason) {
  kind_ = kind;
  std::size_t n = reason.size() < kCapacity - 1 ? reason.size() : kCapacity - 1;
  // Do not cut a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  if (n < reason.size()) {
    while (n > 0 && (static_cast<unsigned char>(reason[n]) & 0xC0) == 0x80) --n;
  }
  short_copy(text_.data(), reason.data(), n);  // most plans a search rejects pass here
  text_[n] = '\0';
}

}  // namespace gpuplan
