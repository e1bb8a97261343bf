// The serving-feature flags of `gpuplan infer` (speculative decoding, prefix caching,
// disaggregated prefill/decode, service-level objectives), bound to InferRequest::features
// (infer/infer_features.h); the library validates them.
#pragma once

#include <functional>

#include "cli/args.h"
#include "infer/infer_features.h"

namespace gpuplan {

// Adds the flags; the returned function copies the optional ones into `features` (call it in
// the command's callback before answering).
std::function<void()> add_infer_feature_flags(CliCommand& cmd, InferFeatures& features);

}  // namespace gpuplan
