// The flags `gpuplan infer` and `gpuplan infer-search` share, bound to the request's common
// fields (infer/infer_request.h); the library validates them.
#pragma once

#include "cli/args.h"
#include "infer/infer_request.h"

namespace gpuplan {

void add_infer_flags(CliCommand& cmd, InferCommon& request, bool& json);

}  // namespace gpuplan
