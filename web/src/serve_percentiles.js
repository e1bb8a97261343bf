// The serve page's latency percentiles: the simulation's p50, p90 and p99 (and mean) of time to
// first token, time per output token, inter-token latency and end-to-end time, drawn from the
// answer's "simulation" (infer/ simulated mode: --concurrency or --request-rate clients).
import * as Plot from "@observablehq/plot";
import { el, fmt, section } from "./charts.js";
import { PALETTE } from "./palette.js";

const METRICS = [
  ["ttft_s", "time to first token"],
  ["tpot_s", "time per output token"],
  ["itl_s", "between two tokens"],
  ["e2e_s", "whole request"],
];
const PERCENTILES = ["p50", "p90", "p99"];

export function percentilesChart(sim) {
  const rows = [];
  for (const [key, label] of METRICS) {
    if (!sim[key]) continue;
    for (const p of PERCENTILES) rows.push({ metric: label, percentile: p, ms: sim[key][p] * 1e3 });
  }
  if (rows.length === 0) return null;
  // Colour and shape both say the percentile (told apart without colour).
  const plot = Plot.plot({
    width: 760, height: 60 + 34 * METRICS.length, marginLeft: 150,
    x: { type: "log", label: "latency (ms) →", grid: true },
    y: { label: null, domain: METRICS.map((m) => m[1]).filter((m) => rows.some((r) => r.metric === m)) },
    color: { legend: true, domain: PERCENTILES, range: [PALETTE[0], PALETTE[1], PALETTE[5]], label: "percentile" },
    symbol: { domain: PERCENTILES, range: ["circle", "square", "triangle"] },
    marks: [
      Plot.ruleY(rows.map((r) => r.metric), { stroke: "currentColor", strokeOpacity: 0.15 }),
      Plot.dot(rows, { x: "ms", y: "metric", fill: "percentile", symbol: "percentile", r: 6, className: "percentile-point",
        title: (r) => `${r.metric}, ${r.percentile}: ${fmt(r.ms)} ms` }),
    ],
  });
  const t = el("table", { class: "parts" }, el("tr", {}, ...["", "mean (ms)", "p50 (ms)", "p90 (ms)", "p99 (ms)"].map((h) => el("th", {}, h))));
  for (const [key, label] of METRICS) {
    const m = sim[key];
    if (!m) continue;
    t.append(el("tr", {}, el("td", {}, label), ...["mean", "p50", "p90", "p99"].map((p) => el("td", {}, fmt(m[p] * 1e3)))));
  }
  const how = sim.rate_per_s_per_replica
    ? `${fmt(sim.rate_per_s_per_replica)} requests/s (${sim.arrivals}) per replica`
    : "the requests in flight kept full";
  return section("Latency percentiles (simulated)", "chart-percentiles",
    el("p", { class: "note" }, `${fmt(sim.requests_measured)} requests simulated at ${how}; ${fmt(sim.requests_per_s)} requests/s served, ${fmt(sim.preemptions)} preemptions.`),
    plot, t);
}
