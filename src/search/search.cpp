// The plan search. Loop nest per layout: sp → micro-batch → (ZeRO stage, shard) → recompute.
// Two pruning rules, each a lower bound that holds for a whole subtree (docs/model/search.md):
//  * time: for a fixed layout, sp and micro-batch, the per-micro-batch time τ does not depend
//    on ZeRO or sharding and never falls with recompute, so step − exposed DP − optimizer
//    (− exposed offload transfers) of the (recompute none, ZeRO 0) plan bounds every plan of
//    the subtree from below;
//  * memory: weights, gradients, optimizer states, gathered-weight buffers and the runtime
//    of a pipeline rank depend only on the layout, ZeRO stage and shard, so once they alone
//    exceed the GPU, every micro-batch, sp and recompute choice of that (stage, shard) fails.
#include "search/search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <tuple>

#include "workload/params.h"

namespace gpuplan {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

auto plan_key(const Plan& p) {
  return std::make_tuple(p.tp, p.pp, p.vp, p.cp, p.dp, p.ep, !p.sp, p.zero, p.dp_shard, p.micro_batch,
                         static_cast<int>(p.recompute));
}

bool closer(const Candidate& a, const Candidate& b) {
  if (a.estimate.memory.total_bytes != b.estimate.memory.total_bytes) return a.estimate.memory.total_bytes < b.estimate.memory.total_bytes;
  return plan_key(a.plan) < plan_key(b.plan);
}

// A bounded heap: the `limit` smallest under `less`, the worst on top.
template <typename Less>
void push_bounded(std::vector<Candidate>& heap, Candidate c, std::size_t limit, Less less) {
  if (limit == 0) return;
  if (heap.size() < limit) {
    heap.push_back(std::move(c));
    std::push_heap(heap.begin(), heap.end(), less);
  } else if (less(c, heap.front())) {
    std::pop_heap(heap.begin(), heap.end(), less);
    heap.back() = std::move(c);
    std::push_heap(heap.begin(), heap.end(), less);
  }
}

// The heap already holds a plan with the same prediction: keep the better-ranked of the two
// (the heap stays a set of distinct predictions, so its K-th score still bounds the answer).
bool replaced_equivalent(std::vector<Candidate>& heap, const Candidate& c) {
  for (Candidate& held : heap) {
    if (!equivalent_prediction(held, c)) continue;
    if (candidate_less(c, held)) {
      held = c;
      std::make_heap(heap.begin(), heap.end(), candidate_less);
    }
    return true;
  }
  return false;
}

void atomic_min(std::atomic<double>& target, double value) {
  double cur = target.load(std::memory_order_relaxed);
  while (value < cur && !target.compare_exchange_weak(cur, value, std::memory_order_relaxed)) {
  }
}

// Shared by the workers.
struct Shared {
  const TrainContext& ctx;
  const SearchSpace& space;
  const SearchOptions& opt;
  const Ranker& ranker;
  const std::vector<Layout>& layouts;
  std::atomic<std::size_t> next{0};
  std::atomic<double> kth{kInf};  // the K-th best score of some worker: an upper bound on the global one
  std::atomic<bool> stop{false};
  Clock::time_point start;
  ProgressCounter* progress = nullptr;  // layouts done, for the caller's sink (core/progress.h)
};

struct Worker {
  Shared& sh;
  // This worker's share of what its evaluations repeat (plan/eval_memo.h): made on first use,
  // on the worker's own thread.
  TrainEvalMemoPtr memo;
  std::vector<Candidate> top;
  std::vector<Candidate> closest;
  std::vector<Candidate> invalid;
  long long evaluated = 0, feasible = 0, pruned = 0;

  double threshold() const {
    const double own = top.size() < static_cast<std::size_t>(sh.opt.top_k) ? kInf : top.front().score;
    return std::min(own, sh.kth.load(std::memory_order_relaxed));
  }

  const Estimate& run(const Plan& p, Estimate& e) {
    if (!memo) memo = make_train_eval_memo(sh.ctx);
    e = evaluate(sh.ctx, p, memo.get());
    ++evaluated;
    if (e.feasible()) {
      ++feasible;
      const double score = sh.ranker.score(e);
      if ((top.size() < static_cast<std::size_t>(sh.opt.top_k) || score <= top.front().score) &&
          !replaced_equivalent(top, Candidate{p, e, score})) {
        push_bounded(top, Candidate{p, e, score}, static_cast<std::size_t>(sh.opt.top_k), candidate_less);
        if (top.size() == static_cast<std::size_t>(sh.opt.top_k)) atomic_min(sh.kth, top.front().score);
      }
    } else if (feasible == 0 && sh.opt.closest > 0) {
      if (e.valid()) {
        push_bounded(closest, Candidate{p, e, 0}, static_cast<std::size_t>(sh.opt.closest), closer);
      } else if (invalid.size() < static_cast<std::size_t>(sh.opt.closest)) {
        invalid.push_back(Candidate{p, e, 0});
      }
    }
    return e;
  }

  // Weights, gradients, optimizer states, gathered weights (+ their fragmentation) and the
  // runtime of the estimate's most loaded rank: the same for every micro-batch, sp and
  // recompute choice of the plan's layout, ZeRO stage and shard.
  double static_memory(const Estimate& e) const {
    const MemoryBreakdown& m = e.memory;
    return (m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.gathered_weights_bytes) * (1 + sh.ctx.fragmentation_fraction) +
           m.runtime_bytes;
  }

  void layout(const Layout& l) {
    const SearchSpace& s = sh.space;
    const bool prune = sh.opt.prune;
    const std::vector<bool> sps = sp_choices(l);
    const std::vector<int> mbs = micro_batch_choices(l, s);
    const std::vector<ShardChoice> shards = shard_choices(l);
    const long long per_group = static_cast<long long>(shards.size()) * 3;  // plans per (sp, mb)
    std::vector<char> too_big(shards.size(), 0);
    std::vector<char> checked(shards.size(), 0);
    std::size_t n_too_big = 0;
    const double capacity = sh.ctx.usable_memory_bytes - sh.ctx.memory_headroom_bytes;
    Estimate e;
    long long groups_left = static_cast<long long>(sps.size() * mbs.size());
    auto check_memory = [&](std::size_t z, const Estimate& est) {
      if (!prune || checked[z] || !est.valid()) return;
      checked[z] = 1;
      if (static_memory(est) > capacity) {
        too_big[z] = 1;
        ++n_too_big;
      }
    };
    for (bool sp : sps) {
      for (int mb : mbs) {
        --groups_left;
        if (prune && n_too_big == shards.size()) {
          // Nothing of this layout can fit: skip the rest of it.
          pruned += per_group * (groups_left + 1);
          return;
        }
        // The time probe: ZeRO 0 without recompute, the fastest τ of the group.
        const Plan probe = make_plan(l, s, sp, shards[0], mb, Recompute::none);
        run(probe, e);
        if (prune && e.valid()) {
          check_memory(0, e);
          // τ-dependent part of the step; the 1e-9 absorbs rounding of the subtraction.
          const TrainBreakdown& b = e.breakdown;
          const double bound = (e.step_time_s - b.dp.exposed_s - b.optimizer_s - b.offload_grads.exposed_s -
                                b.offload_weights.exposed_s) *
                               (1 - 1e-9);
          if (sh.ranker.score_bound(bound) > threshold()) {
            pruned += per_group - 1;
            continue;
          }
        }
        for (std::size_t z = 0; z < shards.size(); ++z) {
          for (Recompute r : kRecomputeChoices) {
            const bool is_probe = z == 0 && r == Recompute::none;
            if (prune && too_big[z]) {
              if (!is_probe) ++pruned;
              continue;
            }
            if (is_probe) continue;
            run(make_plan(l, s, sp, shards[z], mb, r), e);
            check_memory(z, e);
          }
        }
      }
    }
  }

  void operator()() {
    for (;;) {
      if (sh.stop.load(std::memory_order_relaxed)) return;
      const std::size_t idx = sh.next.fetch_add(1, std::memory_order_relaxed);
      if (idx >= sh.layouts.size()) return;
      layout(sh.layouts[idx]);
      if (sh.progress != nullptr) sh.progress->advance();
      if (sh.opt.time_limit_s > 0 &&
          std::chrono::duration<double>(Clock::now() - sh.start).count() > sh.opt.time_limit_s) {
        sh.stop.store(true, std::memory_order_relaxed);
      }
    }
  }
};

}  // namespace

bool equivalent_prediction(const Candidate& a, const Candidate& b) {
  return a.estimate.step_time_s == b.estimate.step_time_s &&
         a.estimate.memory.total_bytes == b.estimate.memory.total_bytes;
}

bool candidate_less(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score < b.score;
  return plan_key(a.plan) < plan_key(b.plan);
}

Ranker make_ranker(const TrainContext& ctx, const SearchSpace& space, const SearchOptions& options) {
  Ranker r;
  r.objective = options.objective;
  r.usd_per_gpu_hour = options.usd_per_gpu_hour;
  r.gpus = space.gpus;
  r.peak_flops = ctx.gpu->dense(space.precision);
  // evaluate()'s model FLOPs (workload/params.h), times the tokens of a step.
  const double tokens = static_cast<double>(space.global_batch) * space.seq_len;
  r.model_flops_per_step = tokens * train_flops_per_token(*ctx.model, ctx.matmul_active_params, space.seq_len);
  return r;
}

SearchResult search_plans(const TrainContext& given, const SearchSpace& space, const SearchOptions& options) {
  const auto start = Clock::now();
  // Every plan of the space has its sequence length: the model FLOPs per token once, here.
  TrainContext ctx = given;
  if (space.seq_len >= 1 && space.seq_len != ctx.flops_seq_len) set_flops_seq_len(ctx, space.seq_len);
  SearchResult result;
  const std::vector<Layout> layouts = enumerate_layouts(*ctx.model, space);
  result.space = count_plans(*ctx.model, space);
  const Ranker ranker = make_ranker(ctx, space, options);
  SearchOptions opt = options;
  opt.top_k = std::max(1, opt.top_k);
  ProgressCounter progress(opt.progress, static_cast<std::int64_t>(layouts.size()));
  Shared sh{ctx, space, opt, ranker, layouts, {0}, {kInf}, {false}, start, &progress};
  int threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::clamp(threads, 1, std::max(1, static_cast<int>(layouts.size())));
  result.threads = threads;

  std::vector<Worker> workers;
  workers.reserve(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) workers.push_back(Worker{sh, nullptr, {}, {}, {}, 0, 0, 0});
  {
    std::vector<std::jthread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(std::ref(workers[static_cast<std::size_t>(i)]));
    workers[0]();
  }

  std::vector<Candidate> all;
  std::vector<Candidate> closest;
  std::vector<Candidate> invalid;
  for (Worker& w : workers) {
    result.evaluated += w.evaluated;
    result.feasible += w.feasible;
    result.pruned += w.pruned;
    all.insert(all.end(), w.top.begin(), w.top.end());
    closest.insert(closest.end(), w.closest.begin(), w.closest.end());
    invalid.insert(invalid.end(), w.invalid.begin(), w.invalid.end());
  }
  std::sort(all.begin(), all.end(), candidate_less);
  // Workers may each hold one of two equivalent plans: keep the better-ranked.
  std::vector<Candidate> distinct;
  for (Candidate& c : all) {
    const bool seen = std::any_of(distinct.begin(), distinct.end(),
                                  [&](const Candidate& kept) { return equivalent_prediction(kept, c); });
    if (!seen) distinct.push_back(std::move(c));
  }
  all = std::move(distinct);
  if (all.size() > static_cast<std::size_t>(opt.top_k)) all.resize(static_cast<std::size_t>(opt.top_k));
  result.top = std::move(all);
  if (result.feasible == 0) {
    std::sort(closest.begin(), closest.end(), closer);
    std::sort(invalid.begin(), invalid.end(), [](const Candidate& a, const Candidate& b) {
      return plan_key(a.plan) < plan_key(b.plan);
    });
    closest.insert(closest.end(), invalid.begin(), invalid.end());
    if (closest.size() > static_cast<std::size_t>(opt.closest)) closest.resize(static_cast<std::size_t>(opt.closest));
    result.closest = std::move(closest);
  }
  result.complete = !sh.stop.load();
  result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace gpuplan
