#pragma once
// The pipeline fill of NCCL's send/receive kernel inside one NVLink domain (AllToAll and
// SendRecv on the Simple protocol; docs/model/collectives.md, "The send/receive pipeline's
// fill"; issue 32, sixteenth session).
//
// NCCL at v2.29.2-1 does not run a point-to-point part in the collective's Simple steps
// (NCCL_BUFFSIZE / NCCL_STEPS): src/enqueue.cc addP2pToPlan sets a Simple send's step and chunk
// to comm->p2pChunkSize (NCCL_P2P_NVL_CHUNKSIZE, 512 KiB, between GPUs of one node), splits a
// peer's bytes into parts of at least minPartSize = chunk / 8 (64 KiB) over its channels, and
// src/device/sendrecv.h runSend / runRecv move a part chunk by chunk (prims_simple.h: one
// slice per chunk, SlicePerChunk = StepPerSlice = 1): the sender's CTA writes a chunk into
// the receiver's FIFO, the receiver's CTA copies it out once the sender posts it. Chunks
// pipeline behind each other, so a channel's part costs its write at the links' shared rate
// (the transfer) plus the copy of one chunk — min(chunk, the part) — at one CTA's rate (the
// channel rate, collective_p2p_channels.h), which no other chunk overlaps. Not capped at the
// transfer: a part of one chunk is written and then copied, one after the other.

#include <algorithm>
#include <cmath>

#include "cost/collective_p2p_channels.h"

namespace gpuplan {

// NCCL_P2P_NVL_CHUNKSIZE's default (src/init.cc at v2.29.2-1: 1 << 19), the Simple chunk of a
// point-to-point send between GPUs of one node.
constexpr double kNcclP2pNvlChunkBytes = 512.0 * 1024;

// The bytes one channel of a peer carries: the peer's bytes over its channels (addP2pToPlan;
// at least one part per 64 KiB, so a peer of under 256 KiB on 8 ranks runs fewer, larger parts
// than its 4 starting channels would make).
inline double nccl_p2p_part_bytes(CollectiveOp op, double bytes, int ranks, int domains) {
  if (ranks < 2) return 0;
  const double per_peer = op == CollectiveOp::all_to_all ? bytes / ranks : bytes;
  const double min_part = kNcclP2pNvlChunkBytes / 8;
  const int start = nccl_p2p_channels(op, bytes, ranks, domains);
  const double channels = std::clamp(std::ceil(per_peer / min_part), 1.0, static_cast<double>(start));
  return per_peer / channels;
}

// The fill: one chunk of a channel's part copied out at one channel's rate, in seconds. 0 where
// the kernel has no per-channel rate (another library, or a group across domains).
inline double nccl_p2p_fill_s(double channel_bw_bytes_per_s, CollectiveOp op, double bytes, int ranks,
                              int domains) {
  if (!(channel_bw_bytes_per_s > 0) || domains > 1 || ranks < 2) return 0;
  if (op != CollectiveOp::all_to_all && op != CollectiveOp::send_recv) return 0;
  return std::min(kNcclP2pNvlChunkBytes, nccl_p2p_part_bytes(op, bytes, ranks, domains)) / channel_bw_bytes_per_s;
}

}  // namespace gpuplan
