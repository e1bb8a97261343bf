#pragma once
// NCCL's channels per peer on its point-to-point path (AllToAll and SendRecv are grouped
// ncclSend/ncclRecv) inside one NVLink domain, and whether a send/receive runs on more of them
// than NCCL starts it on (docs/model/collectives.md, "NCCL's channels per peer").
//
// NCCL at v2.29.2-1: src/graph/paths.cc ncclTopoComputeP2pChannels makes the point-to-point
// channels pow2Up(channels) = 32 on NVSwitch nodes, and p2pnChannelsPerPeer (2 x the NVLinks
// between two GPUs, pow2Up, at most those 32) 32 too; src/enqueue.cc scheduleP2pTasksToPlan
// starts each peer on nChannelsMin = 32 halved while nChannelsMin x nRanks > 32, and
// addP2pToPlan doubles a peer's channels while a part (the peer's bytes / channels) exceeds
// maxPartSize = 32 x NCCL_P2P_NVL_CHUNKSIZE (512 KiB) = 16 MiB on one node, up to the 32. So a
// 4- or 8-GPU AllToAll moves onto more channels above 512 MiB in all (4 x 8 or 8 x 4 channels
// x 16 MiB), a 64-GPU one above 1 GiB, a 2-GPU SendRecv above 256 MiB.

#include <algorithm>

#include "cost/collective.h"

namespace gpuplan {

constexpr int kNcclP2pChannels = 32;
constexpr double kNcclP2pMaxPartBytes = 32.0 * 512 * 1024;

// nChannelsMin: the channels NCCL starts each peer of an n-rank group on.
constexpr int nccl_p2p_start_channels(int ranks) {
  int c = kNcclP2pChannels;
  while (c * ranks > kNcclP2pChannels && c > 1) c /= 2;
  return c;
}

// The channels NCCL runs each peer on: the starting ones, doubled while a part exceeds the
// 16 MiB maximum and another doubling stays within the 32 (addP2pToPlan). Inside one domain
// only: across domains the network sets the pace and NCCL's part limit is the net chunk; not
// modelled there (the starting channels are returned).
inline int nccl_p2p_channels(CollectiveOp op, double bytes, int ranks, int domains) {
  if (ranks < 2) return kNcclP2pChannels;
  const int start = nccl_p2p_start_channels(ranks);
  if (domains > 1 || (op != CollectiveOp::all_to_all && op != CollectiveOp::send_recv)) return start;
  const double per_peer = op == CollectiveOp::all_to_all ? bytes / ranks : bytes;
  int c = start;
  while (per_peer / c > kNcclP2pMaxPartBytes && c <= kNcclP2pChannels / 2) c *= 2;
  return c;
}

// True when NCCL spreads each peer's bytes over more channels than it starts it on.
inline bool nccl_p2p_channels_widened(CollectiveOp op, double bytes, int ranks, int domains) {
  return ranks >= 2 && nccl_p2p_channels(op, bytes, ranks, domains) > nccl_p2p_start_channels(ranks);
}

// The send/receive kernel's share of the links' rate: `fraction` on the starting channels c0;
// spread over c channels its loss shrinks in proportion, 1 - (1 - fraction) x c0 / c (measured on
// 8 x H100: the AllToAll bus bandwidth +7% at the first spread, +3% at the second, flat after;
// docs/model/collectives.md "NCCL's channels per peer").
inline double nccl_p2p_rate_share(double fraction, CollectiveOp op, double bytes, int ranks, int domains) {
  if (ranks < 2) return fraction;
  const int c = nccl_p2p_channels(op, bytes, ranks, domains);
  return 1.0 - (1.0 - fraction) * nccl_p2p_start_channels(ranks) / c;
}

// The channels (CTAs) that carry one GPU's sends inside one domain: its channels per peer times
// the peers it sends to at once — one for a SendRecv (nccl-tests sendrecv_perf: each rank sends
// to the next and receives from the previous, one round of scheduleP2pTasksToPlan), n - 1 for
// an AllToAll (each round, one peer, on its own channels from ncclP2pChannelBaseForRound) — at
// most NCCL's 32 point-to-point channels. 0 across domains, where the NICs set the pace.
inline int nccl_p2p_send_channels(CollectiveOp op, double bytes, int ranks, int domains) {
  if (ranks < 2 || domains > 1 || (op != CollectiveOp::all_to_all && op != CollectiveOp::send_recv)) return 0;
  const int peers = op == CollectiveOp::send_recv ? 1 : ranks - 1;
  return std::min(kNcclP2pChannels, nccl_p2p_channels(op, bytes, ranks, domains) * peers);
}

// The most one GPU's sends move per second on NCCL's send/receive kernel inside one domain: its
// send channels x one channel's rate (each channel one CTA copying its part; measured 8 x H100
// sendrecv_perf runs in proportion to the channels until the links bind, docs/model/
// collectives.md "NCCL's point-to-point channel rate"). 0 (no bound) across domains, for other
// ops, or without a per-channel rate.
inline double nccl_p2p_channel_cap(double channel_bw, CollectiveOp op, double bytes, int ranks, int domains) {
  if (!(channel_bw > 0)) return 0;
  return channel_bw * nccl_p2p_send_channels(op, bytes, ranks, domains);
}

}  // namespace gpuplan
