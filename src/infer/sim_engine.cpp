#include "infer/sim_engine.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <queue>

#include "infer/graph_padding.h"
#include "infer/step.h"
#include "workload/kv_cache.h"

namespace gpuplan {

std::uint64_t SimStepMemo::hash(const Key& k) {
  std::uint64_t h = static_cast<std::uint32_t>(k.decodes);
  h = h * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint32_t>(k.context);
  h = h * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint32_t>(k.prefill);
  h = h * 0x9e3779b97f4a7c15ULL ^ static_cast<std::uint32_t>(k.span);
  return (h ^ (h >> 29)) * 0x9e3779b97f4a7c15ULL;  // the slot is the top bits (Fibonacci hashing)
}

SimStepMemo::SimStepMemo(const InferContext& ctx, const InferPlan& plan)
    : ctx_(&ctx), plan_(&plan), engine0_(*ctx.engine), ctx0_(ctx) {
  engine0_.step_overhead_s = 0;
  ctx0_.engine = &engine0_;
}

double SimStepMemo::cost(const Key& k) {
  const Cost* c = recent_key_[0] == k ? &recent_[0] : recent_key_[1] == k ? &recent_[1] : nullptr;
  if (c == nullptr) {
    recent_key_[1] = recent_key_[0];
    recent_[1] = recent_[0];
    recent_[0] = table_cost(k);
    recent_key_[0] = k;
    c = &recent_[0];
  }
  // step.cpp's total_s = max(linear + attention + elementwise + comm + (step + layers × layer
  // overhead), the executor's host time).
  const double overhead = ctx_->engine->step_overhead_s + c->layer_overhead;
  const double pp = plan_->pp;
  return pp * std::max(c->before_overhead + overhead, c->host);
}

SimStepMemo::Cost SimStepMemo::table_cost(const Key& k) {
  if (slots_.empty()) {
    slots_.resize(std::size_t{1} << 10);
    shift_ = 64 - 10;
  }
  std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(hash(k) >> shift_);
  for (; slots_[i].key.decodes >= 0; i = (i + 1) & mask) {
    if (slots_[i].key == k) return slots_[i].cost;
  }
  // One step of the whole replica passes its pp stages; each stage carries 1/pp of the batch
  // as a micro-batch (the same split as the closed-form steady state, batching.cpp).
  const double pp = plan_->pp;
  StepLoad load;
  load.decode_seqs = k.decodes / pp;
  load.decode_context = k.context;
  load.prefill_tokens = k.prefill / pp;
  load.prefill_span = k.span;
  const StepCost c = step_cost(ctx0_, *plan_, load);
  // With no step overhead, c.overhead_s is exactly layers × layer overhead (0 + x = x).
  const Cost cost{c.linear_s + c.attention_s + c.elementwise_s + c.comm_s, c.overhead_s, c.host_s};
  if ((size_ + 1) * 2 > slots_.size()) {
    // Twice the slots, every entry placed again.
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    --shift_;
    mask = slots_.size() - 1;
    for (const Slot& e : old) {
      if (e.key.decodes < 0) continue;
      std::size_t j = static_cast<std::size_t>(hash(e.key) >> shift_);
      while (slots_[j].key.decodes >= 0) j = (j + 1) & mask;
      slots_[j] = e;
    }
    for (i = static_cast<std::size_t>(hash(k) >> shift_); slots_[i].key.decodes >= 0; i = (i + 1) & mask) {
    }
  }
  slots_[i] = Slot{k, cost};
  ++size_;
  return cost;
}

double SimStepMemo::step_s(double decodes, double decode_context, double prefill_tokens, double prefill_span) {
  const auto d = static_cast<std::int32_t>(decodes);
  const auto p = static_cast<std::int32_t>(prefill_tokens);
  const auto s = static_cast<std::int32_t>(std::lround(prefill_span));
  if (d == 0) return cost({0, 0, p, s});
  const double c = std::max(1.0, decode_context);
  // exp2(floor(log2(c))) is 2^e for c in [2^e, 2^(e+1)), which is c with its mantissa bits
  // cleared; within 2^−40 of either end log2's last-bit rounding could floor to another e, so
  // there the library's answer is taken as before.
  const auto bits = std::bit_cast<std::uint64_t>(c);
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  const bool inside = mantissa > (std::uint64_t{1} << 12) && mantissa < (std::uint64_t{1} << 52) - (std::uint64_t{1} << 12);
  const double binade = inside ? std::bit_cast<double>(bits - mantissa) : std::exp2(std::floor(std::log2(c)));
  const double spacing = std::max(16.0, binade / 32);
  const double lo = std::floor(c / spacing) * spacing;
  const double f = (c - lo) / spacing;
  const double a = cost({d, static_cast<std::int32_t>(lo), p, s});
  if (f <= 0) return a;
  return a + f * (cost({d, static_cast<std::int32_t>(lo + spacing), p, s}) - a);
}

SimScheduler sim_scheduler_of(const InferContext& ctx, const InferPlan& plan, const InferMemory& memory) {
  const Engine& e = *ctx.engine;
  SimScheduler s;
  s.max_num_seqs = replica_max_num_seqs(e, plan);
  s.token_budget = replica_token_budget(e, plan);
  s.chunked_prefill = e.chunked_prefill;
  s.prefill_first = e.prefill_first;
  s.reserve_full_sequence = e.reserve_full_sequence;
  // Each attention-DP rank pads its own decodes (infer/graph_padding.h): with them spread evenly
  // the replica's step pads to dp × a captured size.
  s.cuda_graph_batch_sizes = e.cuda_graph_batch_sizes;
  for (double& b : s.cuda_graph_batch_sizes) b *= std::max(1, plan.attention_dp);
  // TensorRT-LLM waits only without attention DP (py_executor.py _schedule: `not
  // enable_attention_dp`); its attention-DP balancing is a separate rule.
  if (plan.attention_dp <= 1) s.batch_wait = e.batch_wait;
  s.block_tokens = e.kv_block_tokens;
  s.request_overhead_s = e.request_overhead_s;
  // The pool in blocks: the KV budget of one GPU over one block's bytes on it (every GPU of a
  // rank holds its share of each block); attention-DP ranks each hold a pool of their own.
  const int atp = plan.attention_tp();
  const double block_bytes = kv_bytes_per_seq_per_gpu(ctx.kv, e.kv_block_tokens, plan.kv, atp, plan.pp, e.kv_block_tokens);
  const double state_bytes = recurrent_state_bytes_per_seq_per_gpu(ctx.kv, atp, plan.pp);
  if (block_bytes > 0) {
    s.kv_blocks = std::floor(memory.kv_budget / block_bytes) * std::max(1, plan.attention_dp);
    s.state_blocks_per_seq = std::ceil(state_bytes / block_bytes);
  } else {
    // A pure state-space model: no KV blocks, only per-sequence states.
    s.block_tokens = 1e18;
    s.kv_blocks = memory.max_seqs;
    s.state_blocks_per_seq = 1;
  }
  return s;
}

namespace {

struct Req {
  double sent = 0;
  double visible = 0;
  double first = -1;
  double last = 0;
  int in = 0;
  int out = 0;
  int target = 0;     // tokens to (re)compute before the next token: the prompt, or prompt + generated after a preemption
  int computed = 0;   // tokens in the KV cache
  int generated = 0;
  double blocks = 0;
  // The most tokens `blocks` holds (blocks_for(t) <= blocks for every t up to it), found when a
  // decode first asks after the blocks changed; -1 = not known. Spares the division per decode.
  int fits_tokens = -1;
  bool measured = true;
};

// What one step does to one running sequence.
struct Work {
  int req = 0;
  int tokens = 0;      // prompt tokens (prefill) or 1 (decode)
  bool prefill = false;
};

class Simulation {
 public:
  Simulation(const SimScheduler& s, const SimWorkload& w, const SimSlo& slo, SimStepMemo& memo)
      : s_(s), w_(w), slo_(slo), memo_(memo) {
    // A block of 2^p tokens (every engine's): blocks_for by a shift.
    for (int p = 0; p <= 30; ++p) {
      if (s_.block_tokens == static_cast<double>(1 << p)) block_shift_ = p;
    }
  }

  SimResult run() {
    const SimLengths lengths = draw_lengths(w_);
    const int total = static_cast<int>(lengths.input.size());
    reqs_.resize(total);
    for (int i = 0; i < total; ++i) {
      reqs_[i].in = reqs_[i].target = lengths.input[i];
      reqs_[i].out = lengths.output[i];
      reqs_[i].measured = i >= w_.warmup_requests;
    }
    free_blocks_ = s_.kv_blocks;
    if (w_.arrivals == SimArrivals::closed_loop) {
      const int clients = std::min(std::max(1, w_.clients), total);
      for (int k = 0; k < clients; ++k) send(sent_++, w_.ramp_s * k / clients);
    } else {
      const std::vector<double> times = open_loop_arrivals(w_);
      for (int i = 0; i < total; ++i) send(i, times[i]);
      sent_ = total;
    }
    double now = 0;
    int finished = 0;
    while (finished + dropped_ < total) {
      while (!arrivals_.empty() && arrivals_.top().first <= now) {
        waiting_.push_back(arrivals_.top().second);
        arrivals_.pop();
      }
      if (running_.empty() && waiting_.empty()) {
        if (arrivals_.empty()) break;
        now = arrivals_.top().first;
        continue;
      }
      if (decode_stretch(now, finished) > 0) continue;
      next_.known = false;  // the step below changes the running sequences
      work_.clear();
      build_step();
      if (work_.empty()) {
        if (running_.empty() && !waiting_.empty() && (arrivals_.empty() || !fits_ever(waiting_.front()))) {
          waiting_.pop_front();  // a request larger than the whole pool can never run
          ++dropped_;
          continue;
        }
        if (arrivals_.empty()) break;
        now = std::max(now, arrivals_.top().first);
        continue;
      }
      const double end = run_step(now);
      finished += complete_step(end);
      now = end;
    }
    return summarize();
  }

 private:
  using Arrival = std::pair<double, int>;

  void send(int i, double t) {
    reqs_[i].sent = t;
    reqs_[i].visible = t + s_.request_overhead_s;
    arrivals_.emplace(reqs_[i].visible, i);
  }

  double blocks_for(int tokens) const {
    if (block_shift_ >= 0 && tokens >= 0) {
      // ceil(t / 2^p) in whole numbers: t / 2^p is exact in a double, so this is the same number.
      const std::int64_t whole = (static_cast<std::int64_t>(tokens) + (std::int64_t{1} << block_shift_) - 1) >> block_shift_;
      return static_cast<double>(whole) + s_.state_blocks_per_seq;
    }
    return std::ceil(static_cast<double>(tokens) / s_.block_tokens) + s_.state_blocks_per_seq;
  }
  // The largest t with blocks_for(t) <= blocks (blocks_for rises with t), by blocks_for itself
  // around the estimate, so the fast test in build_step decides exactly as the division would.
  int fits_tokens_of(double blocks) const {
    constexpr int kMost = 1 << 30;
    const double guess = (blocks - s_.state_blocks_per_seq) * s_.block_tokens;
    int t = guess >= kMost ? kMost : guess <= 0 ? 0 : static_cast<int>(guess);
    while (t < kMost && blocks_for(t + 1) <= blocks) ++t;
    while (t > 0 && blocks_for(t) > blocks) --t;
    return t;
  }
  bool fits_ever(int i) const {
    const Req& r = reqs_[i];
    return blocks_for(s_.reserve_full_sequence ? r.in + r.out : r.target) <= s_.kv_blocks;
  }

  // Evicts the most recently admitted running sequence (vLLM's and SGLang's victim under FCFS):
  // its blocks are freed and it goes back to the head of the queue, to recompute its prompt and
  // the tokens it generated.
  void preempt_last() {
    const int v = running_.back();
    running_.pop_back();
    Req& r = reqs_[v];
    free_blocks_ += r.blocks;
    r.blocks = 0;
    r.fits_tokens = -1;
    r.computed = 0;
    r.target = r.in + r.generated;
    waiting_.push_front(v);
    ++r_.preemptions;
  }

  // Makes room for `need` more blocks for running_[pos], evicting from the back; false when
  // running_[pos] itself had to go.
  bool make_room(std::size_t pos, double need) {
    while (free_blocks_ < need) {
      if (running_.size() - 1 == pos) {
        preempt_last();
        return false;
      }
      preempt_last();
    }
    return true;
  }

  void build_step() {
    budget_ = s_.token_budget;
    prompt_tokens_ = 0;
    step_decodes_ = step_context_ = step_prompt_ = step_span_ = 0;
    bool prompts_only = false;
    if (s_.prefill_first) {
      bool partial = false;
      for (int i : running_) partial = partial || reqs_[i].computed < reqs_[i].target;
      prompts_only = partial || can_admit();
    }
    // Running sequences first: unfinished prompts continue, the others decode one token.
    for (std::size_t pos = 0; pos < running_.size(); ++pos) {
      Req& r = reqs_[running_[pos]];
      const bool prefilling = r.computed < r.target;
      if (prompts_only && !prefilling) continue;
      if (!prompts_only && s_.prefill_first && prefilling) continue;
      int tokens = prefilling ? r.target - r.computed : 1;
      if (prefilling && s_.chunked_prefill) tokens = static_cast<int>(std::min<double>(tokens, budget_));
      if (tokens <= 0 || (budget_ < tokens && !(prefilling && prompt_tokens_ == 0 && !s_.chunked_prefill))) continue;
      if (!s_.reserve_full_sequence && r.computed + tokens > r.fits_tokens) {
        const double need = blocks_for(r.computed + tokens) - r.blocks;
        if (need > 0 && !make_room(pos, need)) break;
        if (need > 0) {
          free_blocks_ -= need;
          r.blocks += need;
        }
        r.fits_tokens = fits_tokens_of(r.blocks);
      }
      add_work(running_[pos], tokens, prefilling);
      budget_ -= tokens;
      if (prefilling) prompt_tokens_ += tokens;
    }
    if (s_.prefill_first && !prompts_only) return;
    // Then waiting requests, first come first served, while the caps, the budget and the pool allow.
    const Admitted before{running_.size(), work_.size(), budget_, prompt_tokens_, step_prompt_, step_span_, free_blocks_};
    while (!waiting_.empty() && static_cast<double>(running_.size()) < s_.max_num_seqs && budget_ > 0) {
      Req& r = reqs_[waiting_.front()];
      int tokens = r.target - r.computed;
      if (s_.chunked_prefill) {
        tokens = static_cast<int>(std::min<double>(tokens, budget_));
      } else if (tokens > budget_ && prompt_tokens_ > 0) {
        break;  // a whole prompt beyond the budget left waits for a step of its own
      }
      const double need = s_.reserve_full_sequence ? blocks_for(r.in + r.out) : blocks_for(tokens);
      if (need > free_blocks_) break;
      free_blocks_ -= need;
      r.blocks = need;
      r.fits_tokens = -1;
      running_.push_back(waiting_.front());
      waiting_.pop_front();
      add_work(running_.back(), tokens, true);
      budget_ -= tokens;
      prompt_tokens_ += tokens;
    }
    if (s_.batch_wait.on() && running_.size() > before.running && step_decodes_ > 0) hold_or_release(before);
  }

  // The step as it stood before new prompts were admitted: what batch waiting restores.
  struct Admitted {
    std::size_t running, work;
    double budget, prompt_tokens, step_prompt, step_span, free_blocks;
  };

  // Batch waiting (TensorRT-LLM py_executor.py _waiting_requests, called only when the step has
  // both contexts and decodes): the step's tokens are every context's whole prompt plus one per
  // decode; below max_tokens_ratio × the budget, and fewer than timeout_iters steps held so far,
  // the new contexts go back to the head of the queue for this step and the count goes up;
  // otherwise they run and the count restarts.
  void hold_or_release(const Admitted& before) {
    double tokens = step_decodes_;
    for (std::size_t k = before.running; k < running_.size(); ++k) tokens += reqs_[running_[k]].target;
    for (std::size_t k = 0; k < before.running; ++k) {
      const Req& r = reqs_[running_[k]];
      if (r.computed < r.target) tokens += r.target;  // a prompt still in chunks is a context too
    }
    if (held_steps_ >= s_.batch_wait.timeout_iters || tokens >= s_.batch_wait.max_tokens_ratio * s_.token_budget) {
      held_steps_ = 0;
      return;
    }
    ++held_steps_;
    while (running_.size() > before.running) {
      const int i = running_.back();
      running_.pop_back();
      reqs_[i].blocks = 0;
      reqs_[i].fits_tokens = -1;
      waiting_.push_front(i);
    }
    work_.resize(before.work);
    budget_ = before.budget;
    prompt_tokens_ = before.prompt_tokens;
    step_prompt_ = before.step_prompt;
    step_span_ = before.step_span;
    free_blocks_ = before.free_blocks;
  }

  bool can_admit() const {
    if (waiting_.empty() || static_cast<double>(running_.size()) >= s_.max_num_seqs) return false;
    const Req& r = reqs_[waiting_.front()];
    const int tokens = s_.chunked_prefill ? static_cast<int>(std::min<double>(r.target, s_.token_budget)) : r.target;
    return (s_.reserve_full_sequence ? blocks_for(r.in + r.out) : blocks_for(tokens)) <= free_blocks_;
  }

  // Queues one sequence's work for the step and adds it to the step's shape, in the order
  // step_time() once summed the queue (all whole numbers, so the sums are exact either way).
  void add_work(int req, int tokens, bool prefill) {
    work_.push_back({req, tokens, prefill});
    const Req& r = reqs_[req];
    if (prefill) {
      step_prompt_ += tokens;
      step_span_ += static_cast<double>(tokens) * r.target;  // token-weighted prompt length
    } else {
      step_decodes_ += 1;
      step_context_ += r.computed + 1;
    }
  }

  // Costs the step built in step_*_ (step_time) and accounts it from `now`: busy time, the
  // running sequences' time, the peak and the step count. Returns when the step ends.
  double run_step(double now) {
    const double d = step_time();
    r_.busy_s += d;
    running_time_ += d * static_cast<double>(running_.size());
    r_.peak_running = std::max(r_.peak_running, static_cast<int>(running_.size()));
    ++r_.steps;
    return now + d;
  }

  double step_time() {
    double decodes = step_decodes_, context = step_context_, prompt = step_prompt_, span = step_span_;
    if (decodes > 0) context /= decodes;
    if (prompt > 0) span /= prompt;
    if (prompt == 0 && decodes > 0 && !s_.cuda_graph_batch_sizes.empty()) {
      // The dummy rows add tokens, not cached keys (infer/graph_padding.h): the KV read stays the
      // real decodes'.
      const double padded = graph_padded_batch(s_.cuda_graph_batch_sizes, decodes);
      context *= decodes / padded;
      decodes = padded;
    }
    return memo_.step_s(decodes, context, prompt, span);
  }

  // Whether build_step would admit the head of the queue into a step whose running sequences all
  // decode (`budget` = the token budget less their tokens): its admission test, in its order.
  bool admits_front(double budget) const {
    if (waiting_.empty() || static_cast<double>(running_.size()) >= s_.max_num_seqs || budget <= 0) return false;
    const Req& r = reqs_[waiting_.front()];
    int tokens = r.target - r.computed;
    if (s_.chunked_prefill) tokens = static_cast<int>(std::min<double>(tokens, budget));
    return (s_.reserve_full_sequence ? blocks_for(r.in + r.out) : blocks_for(tokens)) <= free_blocks_;
  }

  // KV blocks the running sequences take on in a stretch of `steps` steps: each of the first
  // `joined` sequences decodes `steps` tokens, each sequence admitted at its first step (after
  // `joined`) one fewer. None with reservations.
  double stretch_blocks(int steps, std::size_t joined) const {
    double need = 0;
    if (s_.reserve_full_sequence) return need;
    for (std::size_t pos = 0; pos < running_.size(); ++pos) {
      const Req& r = reqs_[running_[pos]];
      const int decodes = pos < joined ? steps : steps - 1;
      if (decodes > 0 && r.computed + decodes > r.fits_tokens) {
        need += std::max(0.0, blocks_for(r.computed + decodes) - r.blocks);
      }
    }
    return need;
  }

  // Admits, as build_step would after `decodes` decoding sequences (whose blocks for this step,
  // `decode_blocks`, are set aside), the waiting requests that fit, when each of them is new and
  // has its whole prompt in this step and more than one token to generate, so that from the next
  // step on it decodes beside the others. Returns how many (every one build_step would admit), or
  // −1 when one of them is not such a request (nothing is changed then).
  int admit_whole_prompts(double decodes, double decode_blocks) {
    double budget = s_.token_budget - decodes;  // build_step's budget_ after the decodes (exact)
    double prompt_tokens = 0;
    double free = free_blocks_ - decode_blocks;
    std::size_t running = running_.size();
    std::size_t count = 0;
    while (count < waiting_.size() && static_cast<double>(running) < s_.max_num_seqs && budget > 0) {
      const Req& r = reqs_[waiting_[count]];
      int tokens = r.target - r.computed;
      if (s_.chunked_prefill) {
        tokens = static_cast<int>(std::min<double>(tokens, budget));
      } else if (tokens > budget && prompt_tokens > 0) {
        break;
      }
      const double need = s_.reserve_full_sequence ? blocks_for(r.in + r.out) : blocks_for(tokens);
      if (need > free) break;
      if (r.generated != 0 || r.computed + tokens < r.target || r.out <= 1) return -1;
      free -= need;
      ++running;
      budget -= tokens;
      prompt_tokens += tokens;
      ++count;
    }
    for (std::size_t a = 0; a < count; ++a) {
      Req& r = reqs_[waiting_.front()];
      const int tokens = r.target - r.computed;
      const double need = s_.reserve_full_sequence ? blocks_for(r.in + r.out) : blocks_for(tokens);
      free_blocks_ -= need;
      r.blocks = need;
      r.fits_tokens = -1;
      running_.push_back(waiting_.front());
      waiting_.pop_front();
      step_prompt_ += tokens;
      step_span_ += static_cast<double>(tokens) * r.target;
    }
    return static_cast<int>(count);
  }

  // Runs a stretch of steps at once, from `now`; returns the steps run (0 = none: the step is
  // built as usual). While every running sequence decodes, none finishes before the last step, no
  // request is admitted after the first step and the pool has the blocks, step k of the stretch
  // is the one before it with every context a token longer: only the step times are taken one by
  // one (the same calls, in the same order, as one step at a time), each sequence's tokens, blocks
  // and gaps are applied once at the end. The first step may also admit new requests whose whole
  // prompts it prefills (admit_whole_prompts); they decode with the others from the second. The
  // same doubles as stepping: the step's shape is a sum of whole numbers, each step gives every
  // decoding sequence the gap end − now (each got its last token at `now`, checked), and the
  // block counts are whole numbers, so their sums do not depend on the order.
  int decode_stretch(double& now, int& finished) {
    const std::size_t n0 = running_.size();  // the sequences decoding from the first step
    const double nd0 = static_cast<double>(n0);
    if (nd0 > s_.token_budget || free_blocks_ != std::floor(free_blocks_) || free_blocks_ > 0x1p52) return 0;
    // Admission: under prefill_first a step of prompts alone whenever one can be admitted, and
    // batch waiting may hold them back: both stepped as usual. Otherwise the head of the queue
    // after the decodes.
    const bool admit = s_.prefill_first ? can_admit() : admits_front(s_.token_budget - nd0);
    if (admit && (s_.prefill_first || s_.batch_wait.on())) return 0;
    if (n0 == 0 && !admit) return 0;
    int steps = std::numeric_limits<int>::max();
    std::int64_t context0 = 0;
    std::int64_t measured0 = 0;
    double first_blocks = 0;  // blocks the decodes take at the first step
    if (next_.known && next_.now == now) {
      // What the loop below finds, found by the last stretch's final pass (nothing has touched
      // the running sequences since).
      steps = next_.steps;
      context0 = next_.context;
      measured0 = next_.measured;
      first_blocks = next_.first_blocks;
    } else {
      for (int i : running_) {
        const Req& r = reqs_[i];
        if (r.computed < r.target || r.first < 0 || r.last != now) return 0;
        steps = std::min(steps, r.out - r.generated);
        context0 += r.computed + 1;
        measured0 += r.measured;
        if (!s_.reserve_full_sequence && r.computed + 1 > r.fits_tokens) {
          first_blocks += std::max(0.0, blocks_for(r.computed + 1) - r.blocks);
        }
      }
    }
    int k = 0;
    std::int64_t context1 = 0;  // the admitted sequences' contexts at the second step
    std::int64_t measured1 = 0;
    if (admit) {
      // The first step: decodes, then the admitted prompts (build_step), costed and completed.
      if (first_blocks > free_blocks_) return 0;  // build_step would preempt
      step_prompt_ = step_span_ = 0;
      if (admit_whole_prompts(nd0, first_blocks) < 0) return 0;
      step_decodes_ = nd0;
      step_context_ = static_cast<double>(context0);
      const double end = run_step(now);
      if (measured0 > 0) itl_.add(end - now, measured0);
      for (std::size_t pos = n0; pos < running_.size(); ++pos) {
        Req& r = reqs_[running_[pos]];
        r.computed = r.target;
        r.generated = 1;
        r.first = r.last = end;
        steps = std::min(steps, r.out);
        context1 += r.computed + 1;
        measured1 += r.measured;
      }
      now = end;
      k = 1;
      // The requests still waiting may fit once no prompt takes the budget: stop then.
      if (static_cast<double>(running_.size()) > s_.token_budget ||
          admits_front(s_.token_budget - static_cast<double>(running_.size()))) {
        steps = 1;
      }
    }
    const std::size_t n = running_.size();
    const double nd = static_cast<double>(n);
    // A running sequence holds the blocks of its tokens (build_step saw to it), so `steps` more
    // tokens take it at most ⌈steps / block_tokens⌉ more blocks (+1 against any rounding): where
    // the pool has that for all, no sequence needs counting.
    const double bound = nd * (std::ceil(static_cast<double>(steps) / s_.block_tokens) + 1);
    if (!(bound <= free_blocks_) && stretch_blocks(steps, n0) > free_blocks_) {
      // The most steps the free blocks carry without a preemption.
      int lo = k, hi = steps;
      while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (stretch_blocks(mid, n0) <= free_blocks_ ? lo : hi) = mid;
      }
      steps = lo;
      if (steps == 0) return 0;
    }
    // Arrivals end the stretch when the queue is empty (the next step may admit them); behind a
    // head that cannot be admitted they only join the queue, which the main loop does after.
    const bool stop_at_arrival = waiting_.empty();
    const std::int64_t measured = measured0 + measured1;
    while (k < steps) {
      if (stop_at_arrival && !arrivals_.empty() && arrivals_.top().first <= now) break;
      step_decodes_ = nd;
      step_context_ = static_cast<double>(context0 + static_cast<std::int64_t>(k) * static_cast<std::int64_t>(n0) +
                                          context1 + static_cast<std::int64_t>(k - 1) * static_cast<std::int64_t>(n - n0));
      step_prompt_ = step_span_ = 0;
      const double d = step_time();
      const double end = now + d;
      r_.busy_s += d;
      running_time_ += d * nd;
      ++r_.steps;
      if (measured > 0) itl_.add(end - now, measured);
      now = end;
      ++k;
    }
    r_.peak_running = std::max(r_.peak_running, static_cast<int>(n));
    std::size_t kept = 0;
    // The survivors' figures for the next stretch's first pass (all decode, each got its last
    // token at `now`).
    StretchEntry next;
    next.known = true;
    next.now = now;
    for (std::size_t pos = 0; pos < n; ++pos) {
      const int i = running_[pos];
      Req& r = reqs_[i];
      const int decodes = pos < n0 ? k : k - 1;
      if (!s_.reserve_full_sequence && decodes > 0 && r.computed + decodes > r.fits_tokens) {
        const double need = blocks_for(r.computed + decodes) - r.blocks;
        if (need > 0) {
          free_blocks_ -= need;
          r.blocks += need;
        }
        r.fits_tokens = fits_tokens_of(r.blocks);
      }
      r.computed += decodes;
      r.generated += decodes;
      r.last = now;
      if (r.generated >= r.out) {
        free_blocks_ += r.blocks;
        r.blocks = 0;
        r.fits_tokens = -1;
        ++finished;
        if (w_.arrivals == SimArrivals::closed_loop && sent_ < static_cast<int>(reqs_.size())) send(sent_++, now);
        continue;
      }
      running_[kept++] = i;
      next.steps = std::min(next.steps, r.out - r.generated);
      next.context += r.computed + 1;
      next.measured += r.measured;
      if (!s_.reserve_full_sequence && r.computed + 1 > r.fits_tokens) {
        next.first_blocks += std::max(0.0, blocks_for(r.computed + 1) - r.blocks);
      }
    }
    running_.resize(kept);
    next_ = next;
    return k;
  }

  // decode_stretch's first pass over the running sequences, as its last pass left them.
  struct StretchEntry {
    bool known = false;
    double now = 0;
    int steps = std::numeric_limits<int>::max();
    std::int64_t context = 0, measured = 0;
    double first_blocks = 0;
  };

  // Applies the step's work at `end`; returns the requests that finished.
  int complete_step(double end) {
    int finished = 0;
    // The step's gaps, gathered into runs of equal values before they reach itl_ (in order).
    double gap = 0;
    std::int64_t gaps = 0;
    for (const Work& w : work_) {
      Req& r = reqs_[w.req];
      r.computed += w.tokens;
      if (r.computed < r.target) continue;  // a prompt chunk: no token yet
      ++r.generated;
      if (r.first < 0) {
        r.first = end;
      } else if (r.measured) {
        const double g = end - r.last;
        if (gaps > 0 && g == gap) {
          ++gaps;
        } else {
          if (gaps > 0) itl_.add(gap, gaps);
          gap = g;
          gaps = 1;
        }
      }
      r.last = end;
      if (r.generated >= r.out) {
        free_blocks_ += r.blocks;
        r.blocks = 0;
        r.fits_tokens = -1;
        running_.erase(std::find(running_.begin(), running_.end(), w.req));
        ++finished;
        if (w_.arrivals == SimArrivals::closed_loop && sent_ < static_cast<int>(reqs_.size())) send(sent_++, end);
      }
    }
    if (gaps > 0) itl_.add(gap, gaps);
    return finished;
  }

  SimResult summarize() {
    SimResult& out = r_;
    std::vector<double> ttft, tpot, e2e;
    double first_sent = 1e300, last_token = 0, tokens = 0;
    int good = 0;
    for (const Req& r : reqs_) {
      if (!r.measured || r.generated < r.out) continue;
      ttft.push_back(r.first - r.sent);
      e2e.push_back(r.last - r.sent);
      const double t = r.out > 1 ? (r.last - r.first) / (r.out - 1) : 0;
      if (r.out > 1) tpot.push_back(t);
      first_sent = std::min(first_sent, r.sent);
      last_token = std::max(last_token, r.last);
      tokens += r.out;
      good += (slo_.ttft_s <= 0 || r.first - r.sent <= slo_.ttft_s) && (slo_.tpot_s <= 0 || t <= slo_.tpot_s);
    }
    out.requests = static_cast<int>(ttft.size());
    const auto pct = [](std::vector<double>& v) {
      SimPercentiles p;
      if (v.empty()) return p;
      double sum = 0;
      for (double x : v) sum += x;
      p.mean = sum / static_cast<double>(v.size());
      p.p50 = percentile(v, 50);
      p.p90 = percentile(v, 90);
      p.p99 = percentile(v, 99);
      return p;
    };
    out.ttft_at_percentile_s = percentile(ttft, slo_.percentile);
    out.tpot_at_percentile_s = percentile(tpot, slo_.percentile);
    out.ttft_s = pct(ttft);
    out.tpot_s = pct(tpot);
    out.itl_s.mean = itl_.mean();
    if (itl_.size() > 0) {
      out.itl_s.p50 = itl_.percentile(50);
      out.itl_s.p90 = itl_.percentile(90);
      out.itl_s.p99 = itl_.percentile(99);
    }
    out.e2e_s = pct(e2e);
    if (out.requests > 0) {
      out.duration_s = last_token - first_sent;
      if (out.duration_s > 0) {
        out.output_tokens_per_s = tokens / out.duration_s;
        out.requests_per_s = out.requests / out.duration_s;
        out.goodput_requests_per_s = good / out.duration_s;
      }
    }
    out.mean_running = out.busy_s > 0 ? running_time_ / out.busy_s : 0;
    out.step_costs = static_cast<int>(memo_.size());
    return out;
  }

  const SimScheduler& s_;
  const SimWorkload& w_;
  const SimSlo& slo_;
  SimStepMemo& memo_;
  std::vector<Req> reqs_;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arrivals_;
  std::deque<int> waiting_;
  std::vector<int> running_;  // in admission order
  std::vector<Work> work_;
  ValueRuns itl_;  // runs of equal gaps: a step gives each sequence it decodes the same one
  double free_blocks_ = 0;
  double budget_ = 0;
  double prompt_tokens_ = 0;
  // The step's shape, summed as its work is queued (add_work).
  double step_decodes_ = 0, step_context_ = 0, step_prompt_ = 0, step_span_ = 0;
  double running_time_ = 0;
  int sent_ = 0;
  int dropped_ = 0;
  int held_steps_ = 0;  // consecutive steps new contexts were held (batch waiting)
  int block_shift_ = -1;  // block_tokens = 2^block_shift_ (−1: not a power of two)
  StretchEntry next_;     // kept by decode_stretch for the next one
  SimResult r_;
};

}  // namespace

SimResult simulate_serving(const InferContext& ctx, const InferPlan& plan, const SimScheduler& sched,
                           const SimWorkload& workload, const SimSlo& slo, SimStepMemo* memo) {
  SimStepMemo local(ctx, plan);
  Simulation sim(sched, workload, slo, memo ? *memo : local);
  return sim.run();
}

}  // namespace gpuplan
