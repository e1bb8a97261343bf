// Known per-rank data for gpuplan-bench's NCCL collectives, and the check of what arrived:
// small whole numbers in fp32, so every sum is exact and a result either matches or is wrong.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpuplan::cuda {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all };

// Rank `rank`'s send buffer: `count` floats (all_gather: its one chunk).
void fill_collective_send(float* send, std::size_t count, CollectiveOp op, int rank, int ranks, unsigned seed,
                          cudaStream_t stream);
// Elements of rank `rank`'s receive buffer (`count` floats; reduce_scatter: its one chunk)
// that differ from what the collective must deliver. Synchronizes the stream.
unsigned long long collective_wrong(const float* recv, std::size_t count, CollectiveOp op, int rank, int ranks,
                                    unsigned seed, cudaStream_t stream);

}  // namespace gpuplan::cuda
