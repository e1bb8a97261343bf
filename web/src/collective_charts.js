// The collectives page's charts (`gpuplan collective --sweep --report-data`,
// report/collective_page.h): bus bandwidth and time against message size, log scales, with the
// sizes each algorithm/protocol answers shaded and named (the answer's "regions").
import * as Plot from "@observablehq/plot";
import { el, fmt, section } from "./charts.js";
import { PALETTE } from "./palette.js";

// 512 B, 64 KiB, 16 GiB: binary units, as nccl-tests and the sentence write sizes.
export function fmtBytes(b) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = b;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${fmt(v)} ${units[i]}`;
}

// The x axis is log2 of the size (one unit a doubling), drawn linear so that the ticks fall on
// the sizes nccl-tests prints. A region spans its sizes and half a doubling either side, so
// neighbours meet.
const regionRects = (regions) => regions.map((r) => ({ ...r, x1: Math.log2(r.from_bytes) - 0.5, x2: Math.log2(r.to_bytes) + 0.5 }));

function sizeChart(data, y, label, tip, extra = {}) {
  const rows = data.answer.rows.map((r) => ({ ...r, doublings: Math.log2(r.bytes) }));
  const regions = regionRects(data.regions || []);
  const labels = [...new Set(regions.map((r) => r.label))];
  return Plot.plot({
    width: 760, height: 340, marginLeft: 70, marginTop: 30,
    // Ticks every fourth doubling (512 B, 8 KiB, ..., 8 GiB).
    x: { label: "message size →", ticks: [9, 13, 17, 21, 25, 29, 33], tickFormat: (e) => fmtBytes(2 ** e), grid: true },
    y: { label, grid: true, ...extra },
    color: { legend: true, type: "ordinal", domain: labels, range: PALETTE, label: "algorithm/protocol" },
    marks: [
      Plot.rect(regions, { x1: "x1", x2: "x2", fill: "label", fillOpacity: 0.16 }),
      Plot.text(regions, { x: (r) => (r.x1 + r.x2) / 2, frameAnchor: "top", text: "label", dy: -14, fontSize: 10 }),
      Plot.line(rows, { x: "doublings", y, stroke: "currentColor" }),
      Plot.dot(rows, { x: "doublings", y, fill: (r) => (regions.find((g) => r.bytes >= g.from_bytes && r.bytes <= g.to_bytes) || {}).label, r: 3.5,
        title: tip, className: "size-point" }),
    ],
  });
}

export function collectiveCharts(data) {
  const a = data.answer;
  if (!a.rows) {
    return [section("One message", "chart-collective", el("p", { class: "note" },
      "The answer for one size; the page asks for the sweep (512 bytes to 16 GiB) to draw the curve."))];
  }
  const tip = (r) => `${fmtBytes(r.bytes)}: ${fmt(r.busbw_bytes_per_s / 1e9)} GB/s bus, ${fmt(r.algbw_bytes_per_s / 1e9)} GB/s algorithm, ${fmt(r.time_s * 1e6)} µs\n${r.algorithm}/${r.protocol}, bound by ${r.bottleneck_level}`;
  const bw = sizeChart(data, (r) => r.busbw_bytes_per_s / 1e9, "↑ bus bandwidth (GB/s)", tip);
  const time = sizeChart(data, (r) => r.time_s * 1e6, "↑ time (µs)", tip, { type: "log" });
  const t = el("table", { class: "parts" }, el("tr", {}, ...["size", "time (µs)", "algorithm bandwidth (GB/s)", "bus bandwidth (GB/s)", "algorithm", "bound by"].map((h) => el("th", {}, h))));
  for (const r of a.rows) {
    t.append(el("tr", {}, el("td", {}, fmtBytes(r.bytes)), el("td", {}, fmt(r.time_s * 1e6)), el("td", {}, fmt(r.algbw_bytes_per_s / 1e9)),
      el("td", {}, fmt(r.busbw_bytes_per_s / 1e9)), el("td", {}, `${r.algorithm}/${r.protocol}`), el("td", {}, r.bottleneck_level)));
  }
  const transport = a.transport ? `Between nodes: ${a.transport.name}.` : "";
  return [
    section("Bus bandwidth against message size", "chart-collective",
      el("p", { class: "note" }, `Shaded: the sizes each algorithm and protocol answers fastest (as NCCL's tuner picks). ${transport}`), bw),
    section("Time against message size", "chart-collective-time", time),
    section("Every size", "table-collective", t),
  ];
}
