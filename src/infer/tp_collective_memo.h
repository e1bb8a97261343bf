// A memo of tp_collective_s (infer/step.h) for one search. infer-search asks for the same
// collectives again and again: the six weight × KV precisions of a (TP, PP, concurrency) point
// carry the same tokens per step, hence the same activation bytes, so five of every six TP
// AllReduces it costs repeat one already costed. A collective estimate is ~1,200 instructions
// (every algorithm × protocol line), a look-up here a few dozen. The cached value is the
// function's own result for the same (op, bytes, GPUs) on the same context, so the answers do
// not change by a bit.
//
// Owned by one caller (infer_search) on one thread, and tied to one context by address: a copy
// of the context does not use it. Fixed size, no allocation: a direct-mapped table in which a
// new key overwrites the old one in its slot.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace gpuplan {

struct InferContext;

class TpCollectiveMemo {
 public:
  explicit TpCollectiveMemo(const InferContext* owner) : owner_(owner) {}

  const InferContext* owner() const { return owner_; }

  // The cached time, or nullptr when (op, bytes, gpus) is not in the memo.
  const double* find(int op, double bytes, int gpus) const {
    const Slot& s = slots_[slot_of(op, bytes, gpus)];
    return s.op == op && s.gpus == gpus && s.bytes == bytes ? &s.time_s : nullptr;
  }

  void store(int op, double bytes, int gpus, double time_s) {
    Slot& s = slots_[slot_of(op, bytes, gpus)];
    s.op = op;
    s.gpus = gpus;
    s.bytes = bytes;
    s.time_s = time_s;
  }

 private:
  static constexpr int kSlotBits = 9;  // 512 slots, 12 KiB

  struct Slot {
    double bytes = -1;  // no key: tp_collective_s is only memoised for bytes > 0
    int op = -1;
    int gpus = 0;
    double time_s = 0;
  };

  static std::size_t slot_of(int op, double bytes, int gpus) {
    // Fibonacci hashing of the key's bits: the top bits of the product mix all of them.
    const std::uint64_t key = std::bit_cast<std::uint64_t>(bytes) ^
                              (static_cast<std::uint64_t>(gpus) << 3 | static_cast<std::uint64_t>(op));
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits));
  }

  const InferContext* owner_;
  std::array<Slot, std::size_t{1} << kSlotBits> slots_{};
};

}  // namespace gpuplan
