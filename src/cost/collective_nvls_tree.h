// Internal to src/cost/collective*.cpp: how fast NVLS_TREE's heads can post their network
// chunks. NVLS_TREE reduces inside each domain with the switch (NVLS), then each of the domain's
// heads (one GPU per NIC, at most NCCL_MAX_NVLS_ARITY = 32) runs a double binary tree of its
// shard across the domains. Every chunk a head sends or receives across the network is one step
// of NCCL's net transport, posted by that GPU's proxy thread, and NCCL's tuner costs such a
// Simple step at getNetOverhead x 3 (src/graph/tuning.cc: 1 us on Intel and Arm hosts, 2 us on
// AMD, x 3 for Simple; v2.26.2-1 to v2.29.2-1). A head NIC therefore moves at most one chunk
// per step cost each way: chunk / overhead. With NCCL's default 128 KiB NVLS chunk that is 43.7
// GB/s at 3 us, near a 400 Gb/s NIC's rate; from 4 domains on NCCL cuts NVLS_TREE's chunk to 64
// KiB (src/enqueue.cc calcCollChunking: `maxChunkSize = comm->nNodes >= 4 ? 65536 : chunkSize`
// unless NCCL_NVLSTREE_MAX_CHUNKSIZE is set; v2.26.2-1, v2.27.3-1, v2.29.2-1), and the head NICs
// run at 21.8 GB/s: why 20 GB200 NVL72 racks (CoreWeave, NCCL 2.26.2) AllReduce at half the
// network rate of 2 and 3 racks (OCI, NCCL 2.27.3) with the same 32 heads
// (docs/model/collectives.md, "NVLS_TREE's chunk across many racks").
#pragma once

#include <algorithm>

namespace gpuplan {

// NCCL's NVLS_TREE chunk for an AllReduce of `bytes` over `domains` domains (src/enqueue.cc
// calcCollChunking at v2.26.2-1, unchanged to v2.29.2-1): NCCL_NVLS_CHUNKSIZE (`chunk_bytes`),
// at most `max_chunk_bytes` from `max_chunk_min_domains` domains up, then cut in steps while the
// buffer is small against channels x heads x chunk ("concurrentOps"): to 256 KiB below 32 x,
// 128 KiB below 16 x, 64 KiB below 4 x and 32 KiB below 1 x, each test on the chunk as cut so
// far. `channels` 0 (unknown) skips those cuts. 0 when `chunk_bytes` is 0 (no rule).
inline double nvls_tree_chunk_bytes(double bytes, int domains, int channels, int heads, double chunk_bytes,
                                    double max_chunk_bytes, int max_chunk_min_domains) {
  if (!(chunk_bytes > 0)) return 0;
  double chunk = chunk_bytes;
  if (max_chunk_bytes > 0 && max_chunk_min_domains > 0 && domains >= max_chunk_min_domains) {
    chunk = std::min(chunk, max_chunk_bytes);
  }
  if (channels > 0 && heads > 0) {
    const double ops = static_cast<double>(channels) * heads;
    if (bytes < 32 * ops * chunk && chunk > 262144) chunk = 262144;
    if (bytes < 16 * ops * chunk && chunk > 131072) chunk = 131072;
    if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
  }
  return chunk;
}

// The rate one head NIC's proxy posts chunks at, each way: one chunk per Simple net step's cost.
// 0 (no bound) without a chunk or a step cost.
inline double net_step_rate_bytes_per_s(double chunk_bytes, double step_overhead_s) {
  return chunk_bytes > 0 && step_overhead_s > 0 ? chunk_bytes / step_overhead_s : 0.0;
}

}  // namespace gpuplan
