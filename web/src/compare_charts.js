// The compare page's charts (`gpuplan compare A B --model M ... --report-data`,
// report/compare_report.h): each figure of the second GPU as a ratio to the first (training
// step time, throughput and cost per million tokens, then the datasheet), and the figures side
// by side. Drawn from the answer's "figures" as they are.
import * as Plot from "@observablehq/plot";
import { el, fmt, section } from "./charts.js";
import { PALETTE } from "./palette.js";

const BETTER = PALETTE[2]; // bluish green
const WORSE = PALETTE[5]; // vermillion
const SAME = PALETTE[7]; // grey

// "better" where the ratio favours the second GPU (a shorter step; a lower cost, price or power; more of the rest).
function verdict(f, r) {
  if (!(r > 0)) return "not known";
  if (Math.abs(r - 1) < 0.005) return "the same";
  return (r < 1) === f.lower_is_better ? "better" : "worse";
}

export function compareCharts(data) {
  const a = data.answer;
  const names = a.gpus.map((g) => g.id);
  const out = [];
  for (let i = 1; i < names.length; i++) {
    const rows = data.figures.map((f) => ({ ...f, ratio: f.ratios[i], verdict: verdict(f, f.ratios[i]) })).filter((r) => r.ratio > 0);
    const hi = Math.max(2, ...rows.map((r) => Math.max(r.ratio, 1 / r.ratio))) * 1.15;
    const plot = Plot.plot({
      width: 760, height: 40 + 30 * rows.length, marginLeft: 250, marginRight: 60,
      x: { type: "log", domain: [1 / hi, hi], label: `${names[i]} ÷ ${names[0]} →`, grid: true, tickFormat: (x) => `${fmt(x)}×` },
      y: { label: null, domain: rows.map((r) => r.figure) },
      color: { legend: true, domain: ["better", "worse", "the same"], range: [BETTER, WORSE, SAME], label: `for ${names[i]}` },
      marks: [
        Plot.barX(rows, { x1: 1, x2: "ratio", y: "figure", fill: "verdict", inset: 3,
          title: (r) => `${r.figure}: ${fmt(r.values[i])} against ${fmt(r.values[0])} ${r.unit} (${fmt(r.ratio)}×)` }),
        Plot.ruleX([1], { stroke: "currentColor" }),
        // The ratio beside its bar's end: right of a bar that grows right, left of one that grows left.
        Plot.text(rows, { filter: (r) => r.ratio >= 1, x: "ratio", y: "figure", text: (r) => `${fmt(r.ratio)}×`, dx: 6, textAnchor: "start",
          className: "ratio-label" }),
        Plot.text(rows, { filter: (r) => r.ratio < 1, x: "ratio", y: "figure", text: (r) => `${fmt(r.ratio)}×`, dx: -6, textAnchor: "end",
          className: "ratio-label" }),
      ],
    });
    out.push(section(`${names[i]} against ${names[0]}`, "chart-compare",
      el("p", { class: "note" }, "Each figure as a ratio to the first GPU, on a log scale; bluish green where it favours the second GPU (a shorter step; a lower cost, price or power; more of the rest), vermillion where it does not."),
      plot));
  }
  const t = el("table", { class: "parts" }, el("tr", {}, el("th", {}, "figure"), ...names.map((n) => el("th", {}, n)), el("th", {}, "unit")));
  for (const f of data.figures) {
    t.append(el("tr", {}, el("td", {}, f.figure), ...f.values.map((v) => el("td", {}, v > 0 ? fmt(v) : "–")), el("td", {}, f.unit)));
  }
  out.push(section("Side by side", "table-compare", t));
  if (a.training) {
    const p = el("table", { class: "parts" }, el("tr", {}, ...["GPU", "fastest plan", "system", "bottleneck", "price from"].map((h) => el("th", {}, h))));
    for (const s of a.training.sides) {
      p.append(el("tr", {}, el("td", {}, s.gpu), el("td", {}, s.found ? s.plan_words : "no plan fits"), el("td", {}, s.system || "–"),
        el("td", {}, s.bottleneck || "–"), el("td", {}, s.price_source || "no price")));
    }
    out.push(section("Each GPU's fastest plan", "table-compare-plans", p));
  }
  return out;
}
