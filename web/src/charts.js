// The charts of one gpuplan answer, drawn with Observable Plot from the answer's JSON (the
// same object `gpuplan COMMAND --json` prints). Used by the offline HTML report (report.js)
// and by the `gpuplan serve` page (app.js). Every axis names its unit.
import * as Plot from "@observablehq/plot";
import { PALETTE } from "./palette.js";
import { costCharts } from "./cost_charts.js";
import { collectiveCharts } from "./collective_charts.js";
import { compareCharts } from "./compare_charts.js";
import { percentilesChart } from "./serve_percentiles.js";
import { searchFilters } from "./search_filters.js";

const GiB = 1024 ** 3;

// Okabe and Ito's palette (palette.js).
export { PALETTE };
const SLO = "#D55E00"; // the targets' lines (vermillion)

// `digits` significant figures, digits grouped, never scientific notation: 72,500; 0.0123;
// from a billion on in words (the C++ report's human_number says the same).
export function fmt(x, digits = 3) {
  if (x === undefined || x === null || Number.isNaN(x)) return "–";
  const a = Math.abs(x);
  if (a >= 1e12) return `${fmt(x / 1e12, digits)} trillion`;
  if (a >= 1e9) return `${fmt(x / 1e9, digits)} billion`;
  return Number(x.toPrecision(digits)).toLocaleString("en-US", { maximumFractionDigits: 20 });
}

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

export function section(title, testid, ...children) {
  return el("section", { class: "chart", "data-testid": testid }, el("h2", {}, title), ...children);
}

// The step time as the parts that add up to it (forward, backward with recompute, each
// collective's exposed time, pipeline bubble, optimizer), and beside it the communication
// that ran hidden under compute.
export function stepParts(a) {
  const b = a.breakdown;
  const parts = [
    { part: "forward", kind: "compute", s: b.forward_s },
    { part: "backward (incl. recompute)", kind: "compute", s: b.backward_s },
  ];
  for (const c of ["tp", "cp", "ep", "pp", "dp"]) {
    if (b[`${c}_comm_exposed_s`] > 0) parts.push({ part: `${c.toUpperCase()} comm exposed`, kind: "exposed", s: b[`${c}_comm_exposed_s`] });
  }
  if (b.bubble_s > 0) parts.push({ part: "pipeline bubble", kind: "bubble", s: b.bubble_s });
  if (b.optimizer_s > 0) parts.push({ part: "optimizer", kind: "optimizer", s: b.optimizer_s });
  const hidden = [];
  for (const c of ["tp", "cp", "ep", "pp", "dp"]) {
    const h = (b[`${c}_comm_s`] || 0) - (b[`${c}_comm_exposed_s`] || 0);
    if (h > 0) hidden.push({ part: `${c.toUpperCase()} comm overlapped`, kind: "overlapped", s: h });
  }
  return { parts, hidden };
}

export function stepChart(a, label = "") {
  const { parts, hidden } = stepParts(a);
  const total = parts.reduce((t, p) => t + p.s, 0);
  const rows = [
    ...parts.map((p) => ({ ...p, row: "step time" })),
    ...hidden.map((p) => ({ ...p, row: "hidden comm" })),
  ];
  const plot = Plot.plot({
    marginLeft: 90, width: 760, height: 170,
    x: { label: "time per step (s) →", grid: true },
    y: { label: null, domain: ["step time", "hidden comm"] },
    color: { legend: true, type: "ordinal", range: PALETTE, domain: rows.map((d) => d.part) },
    marks: [
      Plot.barX(rows, Plot.stackX({ x: "s", y: "row", fill: "part", title: (d) => `${d.part}: ${fmt(d.s)} s`, inset: 0.5 })),
      Plot.ruleX([0]),
    ],
  });
  const summary = el("p", { class: "headline" },
    "Step time ", el("strong", { "data-testid": "step-time" }, `${fmt(a.step_time_s, 4)} s`),
    " · bottleneck: ", el("strong", { "data-testid": "bottleneck" }, a.bottleneck),
    a.feasible ? "" : el("span", { class: "bad", "data-testid": "infeasible" }, ` · does not run: ${a.reason}`));
  const table = el("table", { class: "parts" }, el("tr", {}, el("th", {}, "part"), el("th", {}, "s"), el("th", {}, "share")));
  for (const p of [...parts, ...hidden]) {
    table.append(el("tr", {}, el("td", {}, p.part), el("td", {}, fmt(p.s, 4)),
      el("td", {}, p.kind === "overlapped" ? "hidden" : `${fmt((100 * p.s) / a.step_time_s, 3)} %`)));
  }
  return section(`Where the step time goes${label}`, "chart-step", summary, plot,
    el("p", { class: "note" }, `Parts add up to ${fmt(total, 4)} s; overlapped communication runs under compute and costs no time.`), table);
}

export function memoryChart(a, label = "") {
  const m = a.memory;
  // Only the terms alive at the peak (peak_terms); the others are alive at another point of the step.
  const atPeak = m.peak_terms ? new Set(m.peak_terms) : null;
  const names = Object.keys(m).filter((k) => k.endsWith("_bytes") && k !== "total_bytes" && m[k] > 0 &&
    (atPeak ? atPeak.has(k) : true));
  const rows = names.map((k) => ({ part: k.replace(/_bytes$/, "").replaceAll("_", " "), gib: m[k] / GiB, row: "per GPU" }));
  const cap = a.memory_capacity_bytes / GiB;
  const plot = Plot.plot({
    marginLeft: 70, width: 760, height: 150,
    x: { label: "memory per GPU (GiB) →", grid: true, domain: [0, Math.max(cap, m.total_bytes / GiB) * 1.05] },
    y: { label: null },
    color: { legend: true, type: "ordinal", range: PALETTE },
    marks: [
      Plot.barX(rows, Plot.stackX({ x: "gib", y: "row", fill: "part", title: (d) => `${d.part}: ${fmt(d.gib)} GiB`, inset: 0.5 })),
      Plot.ruleX([cap], { stroke: "currentColor", strokeWidth: 2, strokeDasharray: "4,3" }),
      Plot.text([cap], { x: (d) => d, y: () => "per GPU", text: () => `usable ${fmt(cap)} GiB`, dy: -38, textAnchor: "end" }),
    ],
  });
  return section(`Memory per GPU${label}`, "chart-memory",
    el("p", { class: "headline" }, el("strong", { "data-testid": "memory-total" }, `${fmt(m.total_bytes / GiB)} GiB`),
      ` of ${fmt(cap)} GiB usable · `,
      !a.fits ? el("span", { class: "bad" }, "does not fit")
        : a.memory_verdict === "tight"
          ? el("span", { class: "bad", "data-testid": "memory-tight" },
            `tight: ${fmt(a.memory_margin_bytes / GiB)} GiB margin, inside the model's ±${fmt(100 * a.memory_error_fraction)} % error`)
          : a.memory_margin_bytes !== undefined ? `fits, ${fmt(a.memory_margin_bytes / GiB)} GiB margin` : "fits",
      m.peak ? ` · peak at the ${m.peak}` : ""), plot);
}

export function rooflineChart(r) {
  const ops = r.ops.filter((o) => o.flops > 0 && o.bytes > 0).map((o) => ({
    ...o, intensity: o.flops / o.bytes, tflops: o.flops / o.time_s / 1e12 }));
  const xs = ops.map((o) => o.intensity);
  // From 1 FLOP/byte (memory-bound kernels) past the ridge points, so both roofs show.
  const ridge = r.peak_flops_per_s / r.peak_memory_bw_bytes_per_s;
  const lo = Math.min(1, Math.min(...xs) / 2);
  const hi = Math.max(...xs, ridge) * 2;
  const line = (peak, bw, name) => {
    const pts = [];
    for (let i = 0; i <= 60; i++) {
      const x = lo * (hi / lo) ** (i / 60);
      pts.push({ x, y: Math.min(peak, bw * x) / 1e12, name });
    }
    return pts;
  };
  const ceilings = [...line(r.peak_flops_per_s, r.peak_memory_bw_bytes_per_s, "datasheet"),
    ...line(r.achievable_flops_per_s, r.achievable_memory_bw_bytes_per_s, "achievable")];
  const plot = Plot.plot({
    width: 760, height: 380, marginLeft: 60,
    x: { type: "log", label: "arithmetic intensity (FLOP/byte) →", grid: true },
    y: { type: "log", label: "↑ rate (TFLOP/s)", grid: true },
    color: { legend: true, domain: ["gemm", "attention", "memory"], range: PALETTE },
    marks: [
      Plot.line(ceilings.filter((d) => d.name === "datasheet"), { x: "x", y: "y", stroke: "currentColor" }),
      Plot.line(ceilings.filter((d) => d.name === "achievable"), { x: "x", y: "y", stroke: "currentColor", strokeDasharray: "6,4" }),
      Plot.dot(ops, { x: "intensity", y: "tflops", fill: "kind", r: 5, title: (o) => `${o.name.replaceAll("_", " ")} (${o.kind}): ${fmt(o.intensity)} FLOP/B, ${fmt(o.tflops)} TFLOP/s, ${fmt(o.time_s * 1e3)} ms` }),
      Plot.text(ops, { x: "intensity", y: "tflops", text: (o) => o.name.replaceAll("_", " "), dy: -9, fontSize: 9 }),
    ],
  });
  return section(`Roofline of ${r.gpu} (${r.precision}) with layer ${r.layer}'s ops (forward, one micro-batch)`, "chart-roofline",
    el("p", { class: "note" }, `Solid: datasheet ${fmt(r.peak_flops_per_s / 1e12)} TFLOP/s, ${fmt(r.peak_memory_bw_bytes_per_s / 1e12)} TB/s; dashed: achievable ${fmt(r.achievable_flops_per_s / 1e12)} TFLOP/s, ${fmt(r.achievable_memory_bw_bytes_per_s / 1e12)} TB/s.`),
    plot);
}

// tokens/s and MFU against GPU count, one line per GPU type; rows {gpu, gpus, tokens_per_s, mfu}.
export function scalingChart(rows, note) {
  const a = Plot.plot({
    width: 370, height: 260, marginLeft: 60,
    x: { type: "log", label: "GPUs →", grid: true },
    y: { type: "log", label: "↑ tokens/s", grid: true },
    color: { legend: true, type: "ordinal", range: PALETTE },
    marks: [Plot.line(rows, { x: "gpus", y: "tokens_per_s", stroke: "gpu", sort: "gpus" }),
      Plot.dot(rows, { x: "gpus", y: "tokens_per_s", fill: "gpu", title: (d) => `${d.gpus} × ${d.gpu}: ${fmt(d.tokens_per_s)} tokens/s` })],
  });
  const b = Plot.plot({
    width: 370, height: 260, marginLeft: 50,
    x: { type: "log", label: "GPUs →", grid: true },
    y: { label: "↑ MFU (%)", grid: true, domain: [0, 100] },
    color: { legend: false, type: "ordinal", range: PALETTE },
    marks: [Plot.line(rows, { x: "gpus", y: (d) => 100 * d.mfu, stroke: "gpu", sort: "gpus" }),
      Plot.dot(rows, { x: "gpus", y: (d) => 100 * d.mfu, fill: "gpu", title: (d) => `${d.gpus} × ${d.gpu}: MFU ${fmt(100 * d.mfu)} %` })],
  });
  return section("Scaling: throughput and MFU against GPU count", "chart-scaling", el("p", { class: "note" }, note), el("div", { class: "row" }, a, b));
}

export function paretoChart(rec) {
  const pts = rec.front.map((p) => ({ ...p, days: p.time_s / 86400 }));
  const plan = (p) => `tp ${p.plan.tp} · pp ${p.plan.pp} · dp ${p.plan.dp} · zero ${p.plan.zero} · mb ${p.plan.micro_batch}`;
  // Log axes where the front spans a wide range; linear where it is narrow (a log axis over
  // 5,856–5,859 USD only crowds the ticks).
  const wide = (k) => Math.max(...pts.map((p) => p[k])) > 3 * Math.min(...pts.map((p) => p[k]));
  const plot = Plot.plot({
    width: 760, height: 360, marginLeft: 70,
    x: { type: wide("days") ? "log" : "linear", label: "time to train (days) →", grid: true },
    y: { type: wide("cost_usd") ? "log" : "linear", label: "↑ cost (USD)", grid: true, tickFormat: "~s" },
    color: { legend: true, type: "ordinal", range: PALETTE },
    marks: [
      Plot.line(pts, { x: "days", y: "cost_usd", sort: "days", stroke: "currentColor", strokeOpacity: 0.4 }),
      Plot.dot(pts, { x: "days", y: "cost_usd", fill: "gpu", r: 5,
        title: (p) => `${p.gpus} × ${p.gpu} (${p.provider}, $${p.usd_per_gpu_hour}/GPU-h)\n${plan(p)}\n${fmt(p.days)} days, $${fmt(p.cost_usd)}, MFU ${fmt(100 * p.mfu)} %` }),
      Plot.tip(pts, Plot.pointer({ x: "days", y: "cost_usd", title: (p) => `${p.gpus} × ${p.gpu}\n${plan(p)}\n${fmt(p.days)} days · $${fmt(p.cost_usd)}` })),
    ],
  });
  return section("Cost against time: the Pareto front", "chart-pareto",
    el("p", { class: "note" }, `${rec.front.length} plans on the front of ${rec.points} evaluated; hover a point for its plan.`), plot);
}

// Serving: output tokens/s per GPU against TPOT, and TTFT, as the requests in flight double;
// SLO lines where the data names targets (slo.tpot_ms, slo.ttft_ms).
export function servingChart(data) {
  const a = data.answer;
  const pts = data.curve.filter((p) => p.feasible).map((p) => ({ ...p, tpot_ms: p.tpot_s * 1e3, ttft_ms: p.ttft_s * 1e3 }));
  const slo = data.slo || {};
  const tput = Plot.plot({
    width: 480, height: 320, marginLeft: 60,
    x: { label: "TPOT (ms per output token) →", grid: true },
    y: { label: "↑ output tokens/s per GPU", grid: true },
    marks: [
      Plot.line(pts, { x: "tpot_ms", y: "output_tokens_per_s_per_gpu", stroke: "currentColor" }),
      Plot.dot(pts, { x: "tpot_ms", y: "output_tokens_per_s_per_gpu", fill: "currentColor", r: 3,
        title: (p) => `${p.concurrency} in flight: ${fmt(p.tpot_ms)} ms TPOT, ${fmt(p.output_tokens_per_s_per_gpu)} tokens/s/GPU, TTFT ${fmt(p.ttft_ms)} ms` }),
      Plot.text(pts, { x: "tpot_ms", y: "output_tokens_per_s_per_gpu", text: (p) => `${p.concurrency}`, dy: -8, fontSize: 9 }),
      slo.tpot_ms ? Plot.ruleX([slo.tpot_ms], { stroke: SLO, strokeDasharray: "5,3" }) : null,
      Plot.dot([a], { x: (d) => d.tpot_s * 1e3, y: "output_tokens_per_s_per_gpu", r: 7, stroke: SLO, strokeWidth: 2 }),
    ],
  });
  const lat = Plot.plot({
    width: 380, height: 320, marginLeft: 60,
    x: { type: "log", label: "requests in flight →", grid: true },
    y: { type: "log", label: "↑ TTFT (ms)", grid: true },
    marks: [
      Plot.line(pts, { x: "concurrency", y: "ttft_ms", stroke: "currentColor" }),
      Plot.dot(pts, { x: "concurrency", y: "ttft_ms", fill: "currentColor", r: 3, title: (p) => `${p.concurrency} in flight: TTFT ${fmt(p.ttft_ms)} ms` }),
      slo.ttft_ms ? Plot.ruleY([slo.ttft_ms], { stroke: SLO, strokeDasharray: "5,3" }) : null,
    ],
  });
  return section("Serving: throughput against latency", "chart-serving",
    el("p", { class: "headline" }, "TPOT ", el("strong", { "data-testid": "tpot" }, `${fmt(a.tpot_s * 1e3, 4)} ms`),
      ` · ${fmt(a.output_tokens_per_s_per_gpu)} output tokens/s per GPU · bottleneck: `, el("strong", { "data-testid": "bottleneck" }, a.bottleneck)),
    el("p", { class: "note" }, "The plan at 1, 2, 4, … requests in flight (labels), up to what its KV cache holds; the ringed point is the answer's own load." +
      (slo.tpot_ms || slo.ttft_ms ? " Dashed orange: the SLO targets." : " No SLO targets were given.")),
    el("div", { class: "row" }, tput, lat));
}

export function servingMemoryChart(a) {
  const m = a.memory_per_gpu;
  const rows = ["weights_bytes", "activations_bytes", "runtime_bytes", "kv_budget_bytes"].filter((k) => m[k] > 0)
    .map((k) => ({ part: k.replace(/_bytes$/, "").replaceAll("_", " "), gib: m[k] / GiB, row: "per GPU" }));
  const cap = m.capacity_bytes / GiB;
  const plot = Plot.plot({
    marginLeft: 70, width: 760, height: 150,
    x: { label: "memory per GPU (GiB) →", grid: true, domain: [0, cap * 1.05] },
    y: { label: null },
    color: { legend: true, type: "ordinal", range: PALETTE },
    marks: [
      Plot.barX(rows, Plot.stackX({ x: "gib", y: "row", fill: "part", title: (d) => `${d.part}: ${fmt(d.gib)} GiB`, inset: 0.5 })),
      Plot.ruleX([cap], { stroke: "currentColor", strokeWidth: 2, strokeDasharray: "4,3" }),
    ],
  });
  return section("Memory per GPU", "chart-memory",
    el("p", { class: "headline" }, `KV cache budget holds ${fmt(m.max_seqs)} sequences of ${a.plan.input_len + a.plan.output_len} tokens; capacity ${fmt(cap)} GiB`), plot);
}

// The answer in one sentence: report_data's "headline", written by the library
// (report/answer_words.h), shown as it is.
export function headline(data) {
  return el("p", { class: "answer", "data-testid": "answer" }, data.headline || "");
}

// Inputs and assumptions as the library formatted them (report/assumptions.h): group, label,
// value with its unit; a heading row where the group changes.
export function assumptionsTable(rows, title = "Inputs and assumptions") {
  const t = el("table", { class: "inputs" });
  // One heading per group, the groups in the order they first appear (the answer's top-level
  // figures sit before and after its plan in the JSON).
  const order = [...new Set((rows || []).map((r) => r.group))];
  const grouped = order.flatMap((g) => rows.filter((r) => r.group === g));
  let group = null;
  for (const r of grouped) {
    if (r.group !== group) {
      group = r.group;
      t.append(el("tr", { class: "group" }, el("th", { colspan: "2" }, group)));
    }
    t.append(el("tr", {}, el("td", {}, r.label), el("td", {}, r.value)));
  }
  return section(title, "table-inputs", t);
}

const trainPlanText = (q) => `tp ${q.tp} · pp ${q.pp} · dp ${q.dp} · cp ${q.cp} · zero ${q.zero} · mb ${q.micro_batch} · ${q.recompute}`;

// The search's ranked plans: throughput against memory per GPU, the best plan ringed.
export function searchScatter(s) {
  // `rank`: the plan's place in the whole list (set by search_filters.js when the list is filtered).
  const pts = (s.top || []).map((p, i) => ({ ...p, rank: p.rank ?? i + 1, gib: p.memory_per_gpu_bytes / GiB, label: trainPlanText(p.plan) }));
  if (pts.length === 0) return null;
  const best = pts.filter((p) => p.rank === 1);
  const cap = s.best ? s.best.memory_capacity_bytes / GiB : null;
  const plot = Plot.plot({
    width: 760, height: 340, marginLeft: 70,
    x: { label: "memory per GPU (GiB) →", grid: true, domain: [0, Math.max(cap || 0, ...pts.map((p) => p.gib)) * 1.05] },
    y: { label: "↑ tokens/s", grid: true, tickFormat: "~s" },
    color: { legend: true, type: "ordinal", range: PALETTE, label: "pipeline stages" },
    marks: [
      cap ? Plot.ruleX([cap], { stroke: "currentColor", strokeDasharray: "4,3" }) : null,
      Plot.dot(pts, { x: "gib", y: "tokens_per_s", fill: (p) => `pp ${p.plan.pp}`, r: 5,
        title: (p) => `#${p.rank}: ${p.label}\n${fmt(p.tokens_per_s)} tokens/s · ${fmt(p.gib)} GiB/GPU · ${fmt(p.step_time_s, 4)} s/step` }),
      Plot.dot(best, { x: "gib", y: "tokens_per_s", r: 10, stroke: "currentColor", strokeWidth: 2.5 }),
      Plot.text(best, { x: "gib", y: "tokens_per_s", text: () => "best", dy: -16, fontWeight: "bold" }),
    ],
  });
  return section("Ranked plans: throughput against memory", "chart-search", el("p", { class: "note" },
    `${s.filtered ? `${pts.length} of the listed plans pass the filters` : `The ${pts.length} best plans of ${fmt(s.feasible)} that fit`}; the ringed point is the best. Dashed: usable memory per GPU.`), plot);
}

// infer-search's Pareto front: output tokens/s per GPU against tokens/s per user (1 / TPOT),
// every point a plan (click it, or its row); dashed: the TPOT target as tokens/s per user.
export function servingFrontChart(data, onSelect) {
  const front = data.front || [];
  const slo = data.slo || {};
  const pts = front.map((p, i) => ({ ...p, i, tpot_ms: p.tpot_s * 1e3, ttft_ms: p.ttft_s * 1e3 }));
  const tip = (p) => `${p.words}\n${fmt(p.output_tokens_per_s_per_gpu)} tokens/s per GPU · ${fmt(p.output_tokens_per_s_per_user)} tokens/s per user\nTPOT ${fmt(p.tpot_ms)} ms · TTFT ${fmt(p.ttft_ms)} ms${p.meets_targets ? "" : " · misses a target"}`;
  const plot = Plot.plot({
    width: 760, height: 380, marginLeft: 70,
    x: { type: "log", label: "output tokens/s per user (1 / TPOT) →", grid: true },
    y: { type: "log", label: "↑ output tokens/s per GPU", grid: true },
    color: { legend: true, type: "ordinal", range: PALETTE, label: "weights / KV" },
    marks: [
      Plot.line(pts, { x: "output_tokens_per_s_per_user", y: "output_tokens_per_s_per_gpu", stroke: "currentColor", strokeOpacity: 0.35 }),
      slo.tpot_ms ? Plot.ruleX([1000 / slo.tpot_ms], { stroke: SLO, strokeWidth: 2, strokeDasharray: "6,4" }) : null,
      slo.tpot_ms ? Plot.text([1000 / slo.tpot_ms], { x: (d) => d, frameAnchor: "top", text: () => `TPOT ≤ ${fmt(slo.tpot_ms)} ms`, dx: 6, textAnchor: "start", fill: SLO }) : null,
      // Filled where the plan meets the targets, hollow where it misses one: the shape, not only
      // the colour, says which.
      Plot.dot(pts.filter((p) => p.meets_targets), { x: "output_tokens_per_s_per_user", y: "output_tokens_per_s_per_gpu", r: 6,
        fill: (p) => `${p.weights} / ${p.kv}`, title: tip, className: "front-point" }),
      Plot.dot(pts.filter((p) => !p.meets_targets), { x: "output_tokens_per_s_per_user", y: "output_tokens_per_s_per_gpu", r: 6,
        stroke: (p) => `${p.weights} / ${p.kv}`, fill: "none", strokeWidth: 2, title: tip, className: "front-point" }),
      Plot.dot(pts.filter((p) => p.chosen), { x: "output_tokens_per_s_per_user", y: "output_tokens_per_s_per_gpu", r: 11, stroke: "currentColor", strokeWidth: 2.5 }),
      Plot.text(pts.filter((p) => p.chosen), { x: "output_tokens_per_s_per_user", y: "output_tokens_per_s_per_gpu", text: () => "chosen", dy: -18, fontWeight: "bold" }),
      Plot.tip(pts, Plot.pointer({ x: "output_tokens_per_s_per_user", y: "output_tokens_per_s_per_gpu", title: tip })),
    ],
  });
  plot.addEventListener("click", () => { if (plot.value && onSelect) onSelect(plot.value); });
  const rows = el("table", { class: "parts front" }, el("tr", {}, ...["plan", "tokens/s per GPU", "tokens/s per user", "TPOT (ms)", "TTFT (ms)", "targets", ""].map((h) => el("th", {}, h))));
  for (const p of pts) {
    const b = el("button", { type: "button", "data-testid": `front-${p.i}` }, "show");
    b.addEventListener("click", () => onSelect && onSelect(p));
    rows.append(el("tr", p.chosen ? { class: "chosen" } : {}, el("td", {}, p.words), el("td", {}, fmt(p.output_tokens_per_s_per_gpu)),
      el("td", {}, fmt(p.output_tokens_per_s_per_user)), el("td", {}, fmt(p.tpot_ms)), el("td", {}, fmt(p.ttft_ms)),
      el("td", {}, p.meets_targets ? "met" : "missed"), el("td", {}, b)));
  }
  const detail = el("p", { class: "selected", "data-testid": "front-selected", "aria-live": "polite" },
    "Click a point (or a row's button) to see its plan.");
  return section("The Pareto front: throughput per GPU against speed per user", "chart-front",
    el("p", { class: "note" }, `${front.length} plans no other plan beats on both axes, of ${fmt(data.answer.feasible)} that fit. Filled: meets the targets; hollow: misses one.` +
      (slo.tpot_ms ? " Dashed: the TPOT target; plans right of it are fast enough per user." : " No TPOT target was given.")),
    plot, detail, el("details", {}, el("summary", {}, "Every plan of the front"), rows));
}

// infer-search --disagg-prefill-gpus: the best disaggregated pair per prefill GPU (prompts there,
// decodes on the search's GPU), pools sized to one request rate; the best row is marked.
export function disaggTable(d) {
  const head = ["prefill GPU", "prefill TP", "decode TP", "decode batch", "TTFT (ms)", "TPOT (ms)", "prefill : decode GPUs",
    "tokens/s per GPU", "$ per M tokens"];
  const t = el("table", { class: "parts" }, el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const c of d.best_per_prefill_gpu) {
    const best = d.found && c.prefill_gpu === d.best.prefill_gpu;
    t.append(el("tr", best ? { class: "chosen", "data-testid": "disagg-best" } : {}, el("td", {}, c.prefill_gpu),
      el("td", {}, c.prefill_tp), el("td", {}, c.decode_tp), el("td", {}, fmt(c.decode_batch)),
      el("td", {}, fmt(c.ttft_s * 1e3)), el("td", {}, fmt(c.tpot_s * 1e3)), el("td", {}, `${fmt(c.prefill_gpus_per_decode_gpu)} : 1`),
      el("td", {}, fmt(c.output_tokens_per_s_per_gpu)),
      el("td", {}, c.usd_per_million_output_tokens === null ? "–" : fmt(c.usd_per_million_output_tokens))));
  }
  const note = d.found
    ? `Decodes on ${d.decode_gpu}; the best pair per prefill GPU of ${fmt(d.evaluated)} evaluated, ${fmt(d.meeting_targets)} meeting the targets, best by ${d.objective === "cost" ? "output tokens per dollar" : "output tokens/s per GPU"} (marked). The pools are sized to one request rate; TTFT has no queueing.`
    : `No disaggregated plan: ${d.reason}`;
  return section(`Disaggregated: prompts on another GPU, decodes on ${d.decode_gpu}`, "table-disagg", el("p", { class: "note" }, note), t);
}

// Hides a chart's text labels (Plot's text marks) that would overlap a label already drawn,
// first come first kept; the hidden label's point keeps its tip. Runs once the charts are in
// the page (sizes need layout).
export function declutter(root) {
  const overlaps = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  for (const svg of root.querySelectorAll("svg")) {
    const texts = [...svg.querySelectorAll("text")].filter((t) => !t.closest("[aria-label=tip]"));
    const isMark = (t) => t.closest("g[aria-label=text]") !== null;
    // The axes' labels first (they always show), then the marks' labels in order.
    const kept = texts.filter((t) => !isMark(t)).map((t) => t.getBoundingClientRect()).filter((b) => b.width > 0);
    for (const t of texts.filter(isMark)) {
      const box = t.getBoundingClientRect();
      if (box.width === 0) continue;
      if (kept.some((k) => overlaps(k, box))) { t.setAttribute("visibility", "hidden"); continue; }
      kept.push(box);
    }
  }
}

// The ranked plans as a table, best first.
export function searchTable(s) {
  const t = el("table", { class: "parts" }, el("tr", {}, ...["rank", "plan", "step (s)", "tokens/s", "MFU (%)", "GiB/GPU", "bottleneck"].map((h) => el("th", {}, h))));
  (s.top || []).forEach((p, i) => {
    const q = p.plan;
    t.append(el("tr", {}, el("td", {}, p.rank ?? i + 1), el("td", {}, trainPlanText(q)),
      el("td", {}, fmt(p.step_time_s, 4)), el("td", {}, fmt(p.tokens_per_s)), el("td", {}, fmt(100 * p.mfu)), el("td", {}, fmt(p.memory_per_gpu_bytes / GiB)), el("td", {}, p.bottleneck)));
  });
  return section(`Search: ${fmt(s.feasible)} plans that fit of ${fmt(s.space)} (${fmt(s.evaluated)} evaluated)`, "table-search", t);
}

// The page of one report object {kind, headline, answer, assumptions, ...} into `root`: the
// answer in words first, then the charts, then the inputs and assumptions. `opts.onSelect`:
// what a click on a point of infer-search's front does.
export function renderReport(root, data, opts = {}) {
  const a = data.answer;
  root.replaceChildren(headline(data));
  const add = (...nodes) => root.append(...nodes.filter((n) => n));
  if (data.kind === "train") {
    add(stepChart(a), memoryChart(a));
    if (data.roofline) add(rooflineChart(data.roofline));
  } else if (data.kind === "search") {
    // The ranked plans, filtered by parallelism (search_filters.js), then the best plan's charts.
    add(searchFilters(a, (s) => [s.best ? searchScatter(s) : null, searchTable(s)]));
    if (a.best) add(stepChart(a.best, " (best plan)"), memoryChart(a.best, " (best plan)"));
    if (a.best && data.roofline) add(rooflineChart(data.roofline));
  } else if (data.kind === "recommend") {
    add(paretoChart(a),
      scalingChart(a.front.map((p) => ({ gpu: p.gpu, gpus: p.gpus, tokens_per_s: p.tokens_per_s, mfu: p.mfu })),
        "Points of the Pareto front, by GPU type: each is that GPU count's best plan."));
  } else if (data.kind === "infer") {
    add(servingChart(data), a.simulation ? percentilesChart(a.simulation) : null, servingMemoryChart(a));
  } else if (data.kind === "cost") {
    add(...costCharts(data));
  } else if (data.kind === "collective") {
    add(...collectiveCharts(data));
  } else if (data.kind === "compare") {
    add(...compareCharts(data));
  } else if (data.kind === "infer-search") {
    if (a.best) {
      const select = opts.onSelect || ((p) => showFrontPoint(root, p));
      add(servingFrontChart(data, select), servingChart({ answer: a.best, curve: data.curve, slo: data.slo }),
        a.simulation ? percentilesChart(a.simulation) : null, servingMemoryChart(a.best));
    }
    if (a.disaggregated) add(disaggTable(a.disaggregated));
  }
  add(assumptionsTable(data.assumptions));
  if (root.isConnected) declutter(root);
}

// What a click on a front point shows in the offline report: its plan and figures.
export function showFrontPoint(root, p) {
  const out = root.querySelector("[data-testid=front-selected]");
  if (out) out.textContent = `${p.words}: ${fmt(p.output_tokens_per_s_per_gpu)} output tokens/s per GPU, ${fmt(p.output_tokens_per_s_per_user)} tokens/s per user (TPOT ${fmt(p.tpot_s * 1e3)} ms, TTFT ${fmt(p.ttft_s * 1e3)} ms)${p.meets_targets ? "" : "; misses a target"}.`;
}
