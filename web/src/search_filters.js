// The search page's filters by parallelism: for each degree the ranked plans use (TP, PP, DP,
// CP, EP), a keyboard-usable range of the values they take; the scatter and the table show the
// plans inside every range, each keeping its rank in the whole list. Presentation only: the
// plans are the answer's `top`, as the search ranked them.
import { el } from "./charts.js";

const DEGREES = ["tp", "pp", "dp", "cp", "ep"];

export function searchFilters(answer, draw) {
  const top = (answer.top || []).map((p, i) => ({ ...p, rank: i + 1 }));
  const holder = el("div", { "data-testid": "search-ranked" });
  const values = {};
  for (const d of DEGREES) values[d] = [...new Set(top.map((p) => p.plan[d]).filter((v) => v !== undefined))].sort((x, y) => x - y);
  const shown = DEGREES.filter((d) => values[d].length > 1);
  const bar = el("fieldset", { class: "controls filters", "data-testid": "search-filters" }, el("legend", {}, "Filter the ranked plans by parallelism"));
  const range = {};
  const redraw = () => {
    const keep = top.filter((p) => shown.every((d) => p.plan[d] >= range[d].min.value && p.plan[d] <= range[d].max.value));
    const s = { ...answer, top: keep, filtered: keep.length !== top.length };
    holder.replaceChildren(...draw(s).filter((n) => n));
  };
  for (const d of shown) {
    const pick = (which, chosen) => {
      const id = `filter-${d}-${which}`;
      const select = el("select", { id, "data-testid": id });
      for (const v of values[d]) select.append(el("option", { value: String(v), ...(v === chosen ? { selected: "" } : {}) }, String(v)));
      // Compare as numbers (select values are strings).
      Object.defineProperty(select, "numberValue", { get: () => Number(select.value) });
      select.addEventListener("change", redraw);
      return { box: el("div", { class: "field" }, el("label", { for: id }, `${d.toUpperCase()} ${which === "min" ? "from" : "to"}`), select), select };
    };
    const lo = pick("min", values[d][0]);
    const hi = pick("max", values[d].at(-1));
    range[d] = { min: { get value() { return lo.select.numberValue; } }, max: { get value() { return hi.select.numberValue; } } };
    bar.append(lo.box, hi.box);
  }
  redraw();
  return shown.length > 0 ? el("div", {}, bar, holder) : holder;
}
