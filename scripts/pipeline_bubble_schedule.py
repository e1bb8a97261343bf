#!/usr/bin/env python3
# Runs Megatron-Core's 1F1B order step by step with uneven stages and prints the step beside
# the planner's bubble formula (docs/model/training.md, "Uneven stages"). The order is
# schedules.py's: forward_backward_pipelining_without_interleaving (p - rank - 1 warm-up
# forwards) and forward_backward_pipelining_with_interleaving ((p - rank - 1)*2 + (v - 1)*p warm-up
# forwards, the k-th forward on chunk (k // p) % v, backwards in reverse chunk order), then one
# forward one backward, then the cool-down backwards. Stage i takes tau_i per micro-batch over
# its v chunks, a third forward and two thirds backward; a chunk starts when its rank is free
# and its input (the previous chunk's forward, the next chunk's backward) is done.
# Usage: python3 scripts/pipeline_bubble_schedule.py
def simulate(tau, m, v):
    p = len(tau)
    f = [t / 3 / v for t in tau]; b = [2 * t / 3 / v for t in tau]
    def fwd_id(k):  # (micro-batch, chunk) of the k-th forward on a rank
        grp = k // (p * v); return grp * p + k % p, (k // p) % v
    def bwd_id(k):
        grp = k // (p * v); return grp * p + k % p, v - 1 - (k // p) % v
    total = m * v
    orders = []
    for r in range(p):
        if v == 1:
            w = min(p - r - 1, m)
        else:
            w = min((p - r - 1) * 2 + (v - 1) * p, total)
        ops = [('F', k) for k in range(w)]
        for j in range(total - w):
            ops.append(('F', w + j)); ops.append(('B', j))
        for j in range(total - w, total):
            ops.append(('B', j))
        orders.append(ops)
    done = {}
    free = [0.0] * p; idx = [0] * p
    progress = True
    while progress:
        progress = False
        for r in range(p):
            while idx[r] < len(orders[r]):
                kind, k = orders[r][idx[r]]
                mb, c = fwd_id(k) if kind == 'F' else bwd_id(k)
                if kind == 'F':
                    dep = ('F', mb, c, r - 1) if r > 0 else (('F', mb, c - 1, p - 1) if c > 0 else None)
                else:
                    dep = ('B', mb, c, r + 1) if r < p - 1 else (('B', mb, c + 1, 0) if c < v - 1 else ('F', mb, c, r))
                if dep is not None and dep not in done: break
                start = max(free[r], done[dep] if dep else 0)
                free[r] = start + (f[r] if kind == 'F' else b[r])
                done[(kind, mb, c, r)] = free[r]; idx[r] += 1; progress = True
    assert all(idx[r] == len(orders[r]) for r in range(p)), "deadlock"
    return max(free)
for tau, m, v in [([4,4,4,4], 8, 1), ([3,5,4,2], 8, 1), ([4,4,4,4], 8, 2), ([3,5,4,2], 8, 2), ([3,5,4,2], 16, 4),
                  ([2,2,2,6], 8, 2), ([6,2,2,2], 8, 2), ([5,4,4,4], 16, 2), ([4,4,4,5], 16, 4), ([4,4,4], 6, 1), ([3,4,5], 6, 1)]:
    p = len(tau); step = simulate(tau, m, v)
    even = m * max(tau) + (p - 1) * max(tau) / v
    new = m * max(tau) + (sum(tau) - max(tau)) / v
    print(tau, 'm', m, 'v', v, 'sim %.3f' % step, 'even-priced %.3f' % even, 'new %.3f' % new)
