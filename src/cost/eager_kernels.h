// Eager PyTorch as the host sees it. A Hugging Face transformers layer run op by op under
// torch.autocast launches one kernel per ATen op: an RMSNorm is six kernels forward, each
// nn.Linear over fp32 weights casts its input and its weight before its GEMM, RoPE is a chain of
// multiplies, a negation and a concatenation per tensor, and autograd's backward of each adds
// its own. The host issues them one by one (Python, the dispatcher, autocast, autograd's graph,
// cudaLaunchKernel), so a layer of small kernels is as slow as the host. The counts per op are
// data (catalog/framework.h EagerKernels, data/fitted/frameworks/pytorch.toml, where each count
// is derived); these are the formulas.
#pragma once

#include "catalog/framework.h"
#include "workload/model.h"
#include "workload/ops.h"

namespace gpuplan {

// The counts are those of a Llama-style layer (RMSNorm, RoPE, SwiGLU, grouped-query attention):
// true when `model`'s layers are of that kind. A LayerNorm or GeLU model's chains are single
// native kernels and keep one host issue per op.
bool eager_kernels_apply(const ModelSpec& model);

// The kernels `op` launches in the table, by the op's role in the layer (workload/ops.cpp's
// names); false when the table has no entry for it (MLA, Mamba, MoE and head ops: the caller
// keeps one host issue per op for those).
bool eager_kernel_count(const EagerKernels& table, const Op& op, KernelCount& out);

// Host time to issue `op` forward and backward: its kernel count × the host time per kernel.
// Returns false (and leaves the times) when the table is off or has no entry for the op.
bool eager_host_time_s(const EagerKernels& table, const Op& op, double& host_fwd_s, double& host_bwd_s);

}  // namespace gpuplan
