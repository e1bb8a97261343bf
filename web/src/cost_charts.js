// The cost page's charts (`gpuplan cost --report-data`, report/cost_report.h): owning against
// renting month by month with the break-even, what the run costs on each offer, and what
// owning costs over the period against renting around the clock. Drawn from the JSON as it is.
import * as Plot from "@observablehq/plot";
import { el, fmt, section } from "./charts.js";
import { PALETTE } from "./palette.js";

const usd = (x) => `$${fmt(x)}`;
const HOURS_PER_MONTH = 8760 / 12; // econ/cost_over_time.h's kHoursPerMonth

// Cumulative cost of owning (the purchase at month 0, then power and operations) and of renting
// the same GPUs on-demand around the clock; the break-even ringed; the run's own length dashed.
export function costOverTimeChart(data) {
  const o = data.ownership.over_time;
  const rows = o.points.flatMap((p) => [
    { months: p.months, usd: p.own_usd, what: "own (purchase, then power and operations)" },
    { months: p.months, usd: p.rent_usd, what: "rent on-demand around the clock" }]);
  const runMonths = data.answer.wall_hours / HOURS_PER_MONTH;
  const even = o.breaks_even ? [{ months: o.break_even_months, usd: o.own_upfront_usd + o.own_usd_per_hour * o.break_even_hours }] : [];
  const plot = Plot.plot({
    width: 760, height: 340, marginLeft: 70,
    x: { label: "months of use, around the clock →", grid: true },
    y: { label: "↑ cumulative cost (USD)", grid: true, tickFormat: "~s" },
    color: { legend: true, type: "ordinal", range: PALETTE },
    marks: [
      Plot.ruleY([0]),
      Plot.line(rows, { x: "months", y: "usd", stroke: "what", strokeWidth: 2.5 }),
      Plot.tip(rows, Plot.pointer({ x: "months", y: "usd", title: (d) => `${d.what}: ${usd(d.usd)} after ${fmt(d.months)} months` })),
      runMonths > 0 ? Plot.ruleX([runMonths], { stroke: "currentColor", strokeDasharray: "4,3" }) : null,
      runMonths > 0 ? Plot.text([runMonths], { x: (d) => d, frameAnchor: "top", text: () => "this run", dx: 4, textAnchor: "start" }) : null,
      Plot.dot(even, { x: "months", y: "usd", r: 8, stroke: "currentColor", strokeWidth: 2.5 }),
      Plot.text(even, { x: "months", y: "usd", text: (d) => `break-even: ${fmt(d.months)} months`, dy: -16, fontWeight: "bold" }),
    ],
  });
  return section("Owning against renting over time", "chart-cost-time",
    el("p", { class: "note" }, o.breaks_even
      ? `Owning starts at the purchase (${usd(o.own_upfront_usd)}) and adds ${usd(o.own_usd_per_hour)} an hour; renting the same GPUs costs ${usd(o.rent_usd_per_hour)} an hour. The ringed point is where they cross; dashed: the length of this run.`
      : `Renting (${usd(o.rent_usd_per_hour)} an hour) costs no more than running owned GPUs (${usd(o.own_usd_per_hour)} an hour): owning never catches up.`),
    plot);
}

const offerLabel = (r, i) => `${i + 1}. ${r.provider} ${r.instance}, ${r.pricing}`;

// The run's cost on each current offer, cheapest first (the answer's own order).
export function costOffersChart(a) {
  const rows = a.rows.map((r, i) => ({ ...r, label: offerLabel(r, i) })).filter((r) => !r.historical).slice(0, 16);
  if (rows.length === 0) return null;
  const plot = Plot.plot({
    width: 760, height: 40 + 24 * rows.length, marginLeft: 320,
    x: { label: "cost of the run (USD) →", grid: true, tickFormat: "~s" },
    y: { label: null, domain: rows.map((r) => r.label) },
    color: { legend: true, type: "ordinal", range: PALETTE, label: "pricing" },
    marks: [
      Plot.barX(rows, { x: "usd", y: "label", fill: "pricing", inset: 2,
        title: (r) => `${r.provider} ${r.instance} (${r.pricing}): ${usd(r.usd)}, ${usd(r.usd_per_gpu_hour)} per GPU-hour, ${fmt(r.wall_hours)} h` }),
      Plot.ruleX([0]),
    ],
  });
  return section("What the run costs on each offer", "chart-cost-offers",
    el("p", { class: "note" }, `${rows.length} cheapest current offers of ${a.rows.length}; spot rows include the time lost to restarts.`), plot);
}

// Owning for the period (purchase, energy, operations) against renting around the clock.
export function ownershipChart(data) {
  const t = data.ownership.tco;
  const o = data.ownership.over_time;
  const years = t.years.value;
  const own = `own ${fmt(years)} years`;
  const rent = `rent ${fmt(years)} years`;
  const rows = [
    { row: own, part: "purchase", usd: t.capex_usd.value },
    { row: own, part: "energy", usd: t.on_prem.energy_usd },
    { row: own, part: "operations", usd: t.on_prem.ops_usd },
    // The last month of the cost over time: the period's end.
    { row: rent, part: "on-demand, around the clock", usd: o.points.at(-1).rent_usd },
  ].filter((r) => r.usd > 0);
  const plot = Plot.plot({
    width: 760, height: 150, marginLeft: 110,
    x: { label: "cost over the period (USD) →", grid: true, tickFormat: "~s" },
    y: { label: null, domain: [own, rent] },
    color: { legend: true, type: "ordinal", range: PALETTE },
    marks: [
      Plot.barX(rows, Plot.stackX({ x: "usd", y: "row", fill: "part", inset: 0.5, title: (r) => `${r.part}: ${usd(r.usd)}` })),
      Plot.ruleX([0]),
    ],
  });
  return section(`Owning ${fmt(t.gpus)} GPUs for ${fmt(years)} years against renting them`, "chart-ownership",
    el("p", { class: "note" }, `${fmt(t.nodes)} ${t.system || "GPU"} nodes${t.switches > 0 ? ` and ${fmt(t.switches)} switches` : ""}; owning totals ${usd(t.on_prem.total_usd)}.`),
    plot);
}

// The offers as a table, cheapest first.
export function costTable(a) {
  const t = el("table", { class: "parts" }, el("tr", {}, ...["", "offer", "pricing", "per GPU-hour", "instances", "hours", "cost"].map((h) => el("th", {}, h))));
  a.rows.forEach((r, i) => {
    if (r.historical) return;
    t.append(el("tr", {}, el("td", {}, i + 1), el("td", {}, `${r.provider} ${r.instance}`), el("td", {}, r.pricing),
      el("td", {}, usd(r.usd_per_gpu_hour)), el("td", {}, fmt(r.instances)), el("td", {}, fmt(r.wall_hours)), el("td", {}, usd(r.usd))));
  });
  return section("Every current offer", "table-cost", t);
}

export function costCharts(data) {
  const out = [];
  if (data.ownership) out.push(costOverTimeChart(data));
  else out.push(section("Owning against renting", "chart-cost-time", el("p", { class: "note" }, `Not compared: ${data.no_ownership}.`)));
  out.push(costOffersChart(data.answer));
  if (data.ownership) out.push(ownershipChart(data));
  out.push(costTable(data.answer));
  return out;
}
