// What the evaluations of one plan search share (one memo per search worker; search/search.cpp).
// A search evaluates hundreds of thousands of plans that differ in a field or two, and two
// parts of evaluate() repeat exactly across them:
//  * the collectives: a search asks for the same (op, bytes, group) again and again (every
//    ZeRO stage and shard of a layout repeats the TP and PP transfers; every recompute choice
//    the DP ones). An estimate is ~1,000 instructions (every algorithm × protocol line), a
//    look-up here a few dozen;
//  * the per-layer costs (cost_layers: each kind of decoder layer, the embedding and the head):
//    they depend on neither the ZeRO stage nor the sharding group (those set memory and the DP
//    collectives only), and the search walks every (stage, shard) of a layout, micro-batch and
//    recompute choice in a row.
// Each cached value is the function's own result for the same inputs on the same context, so
// an answer does not change by a bit (EvalMemo.* check every plan of a dense and a
// MoE search space). Tied to one context by address: evaluate() ignores a memo made for
// another. Fixed size, no allocation after construction; not shared between threads.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "plan/evaluate_internal.h"

namespace gpuplan {

// Collective times by request: a direct-mapped table in which a new key overwrites the old one.
class TrainCollectiveMemo {
 public:
  // The cached answer for `r`, or nullptr.
  const CollectiveTime* find(const CollectiveRequest& r) const {
    const Slot& s = slots_[slot_of(r)];
    return s.used && same(s.key, r) ? &s.time : nullptr;
  }
  void store(const CollectiveRequest& r, const CollectiveTime& t) {
    Slot& s = slots_[slot_of(r)];
    s.used = true;
    s.key = r;
    s.time = t;
  }

 private:
  static constexpr int kSlotBits = 10;  // 1,024 slots, 56 KiB

  struct Slot {
    bool used = false;
    CollectiveRequest key;
    CollectiveTime time;
  };

  static bool same(const CollectiveRequest& a, const CollectiveRequest& b) {
    return a.bytes == b.bytes && a.op == b.op && a.gpus_per_domain == b.gpus_per_domain && a.domains == b.domains &&
           a.domain_stride == b.domain_stride && a.algorithm == b.algorithm && a.concurrent == b.concurrent &&
           a.nccl_p2p == b.nccl_p2p;
  }

  static std::size_t slot_of(const CollectiveRequest& r) {
    // Fibonacci hashing of the key's bits: the top bits of the product mix all of them.
    const std::uint64_t group = static_cast<std::uint64_t>(r.gpus_per_domain) * 0x100000001B3ULL ^
                                static_cast<std::uint64_t>(r.domains) << 20 ^
                                static_cast<std::uint64_t>(r.domain_stride) << 40;
    const std::uint64_t key = std::bit_cast<std::uint64_t>(r.bytes) ^ group ^ static_cast<std::uint64_t>(r.op) << 58;
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits));
  }

  std::array<Slot, std::size_t{1} << kSlotBits> slots_{};
};

// cost_layers of the last few plans, keyed by the plan less its ZeRO stage and sharding group.
// The search's innermost loop runs the three recompute choices of each (stage, shard): four
// entries, replaced in turn, hold a period of it.
class TrainLayerMemo {
 public:
  using LayerCosts = train_eval::LayerCosts;

  const LayerCosts* find(const Plan& p) const {
    const Plan key = key_of(p);
    for (const Entry& e : entries_) {
      if (e.used && e.key == key) return &e.costs;
    }
    return nullptr;
  }
  const LayerCosts* store(const Plan& p, const LayerCosts& costs) {
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % entries_.size();
    e.used = true;
    e.key = key_of(p);
    e.costs = costs;
    return &e.costs;
  }

 private:
  // The fields cost_layers does not read (plan/layer_cost.cpp): ZeRO and the sharding group
  // change memory and the data-parallel collectives only.
  static Plan key_of(Plan p) {
    p.zero = 0;
    p.dp_shard = 0;
    return p;
  }

  struct Entry {
    bool used = false;
    Plan key;
    LayerCosts costs;
  };
  std::array<Entry, 4> entries_{};
  std::size_t next_ = 0;
};

struct TrainEvalMemo {
  explicit TrainEvalMemo(const TrainContext& ctx) : owner(&ctx) {}
  const TrainContext* owner;
  TrainCollectiveMemo collectives;
  TrainLayerMemo layers;
  // False where the context's efficiency and framework change between calls (the efficiency
  // fit, plan/fit.cpp, retargets one row's context thousands of times): the layer costs read
  // them and are not kept; the collectives read only the request and the topology.
  bool keep_layer_costs = true;
};

}  // namespace gpuplan
