// The `gpuplan serve` page: pick a model (zoo id or an uploaded config.json), a GPU and a plan;
// the page asks the server's JSON API (/api/report/train: the answer plus the op roofline) and
// draws the same charts as the HTML report. "Keep as A" pins a plan to compare side by side.
import { renderReport, fmt } from "./charts.js";

const $ = (id) => document.getElementById(id);
let uploaded = null; // the parsed config.json object, sent in the request body
let pinned = null;   // {label, data}: plan A of the comparison

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error ? json.error.message : `HTTP ${res.status}`);
  return json;
}

function options(select, items, chosen) {
  select.replaceChildren(...items.map((it) => {
    const o = document.createElement("option");
    o.value = it.id; o.textContent = it.label;
    if (it.id === chosen) o.selected = true;
    return o;
  }));
}

function request() {
  const r = {};
  for (const f of ["gpu", "recompute", "precision"]) r[f] = $(f).value;
  for (const f of ["gpus", "tp", "pp", "cp", "zero", "micro_batch", "global_batch", "seq_len"]) {
    if ($(f).value !== "") r[f] = Number($(f).value);
  }
  r.sp = $("sp").checked;
  if (uploaded) r.model_config = uploaded; else r.model = $("model").value;
  return r;
}

function showError(msg) {
  $("error").textContent = msg;
  $("error").hidden = !msg;
}

function summary(label, a) {
  return `${label}: ${fmt(a.step_time_s, 4)} s/step · ${fmt(a.tokens_per_s)} tokens/s · MFU ${fmt(100 * a.mfu)} % · ${a.bottleneck}`;
}

async function estimate() {
  showError("");
  $("status").textContent = "estimating…";
  try {
    const data = await api("/api/report/train", request());
    const label = `${data.answer.model} on ${data.answer.gpus} × ${data.answer.gpu}: tp ${data.answer.plan.tp} · pp ${data.answer.plan.pp} · dp ${data.answer.plan.dp}`;
    $("current").dataset.label = label;
    $("current-title").textContent = `B: ${label}`;
    renderReport($("current-report"), data);
    $("current").data = data;
    $("status").textContent = summary("B", data.answer);
    $("compare").hidden = !pinned;
    if (pinned) $("diff").textContent = `${summary("A", pinned.data.answer)}\n${summary("B", data.answer)}\nB/A step time: ${fmt(data.answer.step_time_s / pinned.data.answer.step_time_s, 4)}`;
  } catch (e) {
    $("status").textContent = "";
    showError(e.message);
  }
}

function pin() {
  const data = $("current").data;
  if (!data) return;
  pinned = { label: $("current").dataset.label, data };
  $("pinned").hidden = false;
  $("pinned-title").textContent = `A: ${pinned.label}`;
  renderReport($("pinned-report"), data);
  $("layout").classList.add("two");
}

async function init() {
  const [models, gpus] = await Promise.all([api("/api/models"), api("/api/gpus")]);
  options($("model"), models.models.map((m) => ({ id: m.id, label: `${m.id} (${m.name})` })), "llama3.1-8b");
  options($("gpu"), gpus.gpus.filter((g) => g.is_gpu).map((g) => ({ id: g.id, label: g.id })), "h100-sxm");
  $("config").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    showError("");
    uploaded = null;
    if (!file) return;
    try {
      uploaded = JSON.parse(await file.text());
      $("model").disabled = true;
    } catch (e) {
      showError(`config.json: not valid JSON (${e.message})`);
    }
  });
  $("clear-config").addEventListener("click", () => { uploaded = null; $("config").value = ""; $("model").disabled = false; });
  $("form").addEventListener("submit", (ev) => { ev.preventDefault(); estimate(); });
  $("pin").addEventListener("click", pin);
  $("ready").hidden = false;
  await estimate();
}

init().catch((e) => showError(e.message));
