// The `gpuplan serve` page: one page per question (train, search, serve, best serving plan,
// recommend, cost, collectives, compare), one layout and one chart library (charts.js, shared with the offline report).
// Each page is a form whose fields are the command's API keys; *Answer* posts them to
// /api/report/<command> and draws the answer: the sentence first, then the charts, then the
// assumptions. The page and its fields live in the URL (?page=infer-search&model=...), so an
// answer is a link one can send; opening the link answers again.
import { renderReport, fmt } from "./charts.js";

const $ = (id) => document.getElementById(id);

// One field: its API key, label, input kind and default. `empty: true` where an empty box means
// "not given" (the command's own default: seq len = the model's context, ...), sent as unset.
const F = {
  model: { key: "model", label: "model", kind: "model", value: "llama3.1-8b" },
  gpu: { key: "gpu", label: "GPU", kind: "gpu", value: "h100-sxm" },
  gpus: (v) => ({ key: "gpus", label: "GPUs", kind: "number", value: v }),
  num: (key, label, value, extra = {}) => ({ key, label, kind: "number", value, ...extra }),
  pick: (key, label, choices, value) => ({ key, label, kind: "select", choices, value }),
  check: (key, label, value = false) => ({ key, label, kind: "checkbox", value }),
  text: (key, label, value, extra = {}) => ({ key, label, kind: "text", value, ...extra }),
};

const PAGES = {
  train: {
    title: "Train: how fast, does it fit",
    nav: "Train",
    endpoint: "/api/report/train",
    fields: [F.model, F.gpu, F.gpus(8), F.num("tp", "TP", 1), F.num("pp", "PP", 1), F.num("cp", "CP", 1), F.check("sp", "SP"),
      F.pick("zero", "ZeRO", ["0", "1", "2", "3"], "1"), F.num("micro_batch", "micro-batch", 1), F.num("global_batch", "global batch", 64),
      F.num("seq_len", "seq len", 4096, { empty: true, hint: "empty: the model's context length" }),
      F.pick("recompute", "recompute", ["none", "selective", "full"], "selective"), F.pick("precision", "precision", ["bf16", "fp8", "fp16"], "bf16")],
    compare: true,
  },
  search: {
    title: "Search: the best training plans",
    nav: "Search",
    endpoint: "/api/report/search",
    fields: [F.model, F.gpu, F.gpus(8), F.num("global_batch", "global batch", 64),
      F.num("seq_len", "seq len", 4096, { empty: true, hint: "empty: the model's context length" }),
      F.pick("precision", "precision", ["bf16", "fp8"], "bf16"), F.pick("objective", "rank by", ["time", "cost", "mfu"], "time"),
      F.num("top", "plans listed", 20)],
  },
  infer: {
    title: "Serve: latency and throughput of one plan",
    nav: "Serve: one plan",
    endpoint: "/api/report/infer",
    fields: [F.model, F.gpu, F.num("tp", "TP", 1), F.num("pp", "PP", 1), F.pick("weights", "weights", ["bf16", "fp8", "int4"], "bf16"),
      F.pick("kv", "KV cache", ["", "bf16", "fp8"], ""), F.num("input_len", "prompt tokens", 1024), F.num("output_len", "output tokens", 256),
      F.num("concurrency", "requests in flight", 32),
      F.num("request_rate", "request rate (req/s)", "", { empty: true, hint: "empty: the requests in flight kept full" })],
  },
  "infer-search": {
    title: "Serve: the best plan and the Pareto front",
    nav: "Serve: best plan",
    endpoint: "/api/report/infer-search",
    fields: [F.model, F.gpu, F.num("gpus_max", "GPUs at most", 8), F.num("input_len", "prompt tokens", 1024), F.num("output_len", "output tokens", 256),
      F.num("tpot_ms", "TPOT target (ms)", "", { empty: true, hint: "empty: none" }), F.num("ttft_ms", "TTFT target (ms)", "", { empty: true, hint: "empty: none" }),
      F.num("slo_percentile", "targets at percentile", "", { empty: true, hint: "empty: the closed-form means; 99: the simulated p99" }),
      F.pick("objective", "best by", ["throughput", "cost"], "throughput"),
      F.text("disagg_prefill_gpus", "disaggregate: prompts on", "", { empty: true, hint: "GPU ids, e.g. b200,h100-sxm; empty: off" })],
  },
  recommend: {
    title: "Recommend: which GPUs, how many, at what cost",
    nav: "Recommend",
    endpoint: "/api/report/recommend",
    fields: [F.model, F.num("tokens", "training tokens", 1e9), F.num("gpus_max", "GPUs at most", 16),
      F.num("global_batch", "global batch", 256), F.num("seq_len", "seq len", 4096), F.num("time_limit", "seconds per search", 1)],
  },
  cost: {
    title: "Cost: renting the run, or owning the GPUs",
    nav: "Cost",
    endpoint: "/api/report/cost",
    fields: [F.model, F.gpu, F.gpus(8), F.num("tokens", "training tokens", 1e10),
      F.num("global_batch", "global batch", "", { empty: true, hint: "empty: 4M tokens' worth" }),
      F.num("seq_len", "seq len", "", { empty: true, hint: "empty: the model's context length" })],
  },
  collective: {
    title: "Collectives: bus bandwidth against message size",
    nav: "Collectives",
    endpoint: "/api/report/collective",
    fields: [F.pick("op", "collective", ["allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "sendrecv"], "allreduce"),
      F.num("gpus", "GPUs", 16), F.text("system", "system", "dgx-h100", { empty: true, hint: "empty: the fabric's" }),
      F.num("nodes", "nodes", "", { empty: true, hint: "empty: as few as hold the GPUs" }),
      F.text("fabric", "fabric", "", { empty: true, hint: "empty: the nodes' network cards" }),
      F.pick("algorithm", "algorithm", ["auto", "ring", "tree", "nvls", "direct"], "auto"), F.pick("dtype", "element type", ["bf16", "fp16", "fp32"], "bf16")],
    // Always the sweep: the curve over 512 B ... 16 GiB.
    fixed: { sweep: true },
  },
  compare: {
    title: "Compare: two GPUs on one training question",
    nav: "Compare",
    endpoint: "/api/report/compare",
    fields: [{ key: "gpu_a", label: "GPU A", kind: "gpu", value: "h100-sxm" }, { key: "gpu_b", label: "GPU B", kind: "gpu", value: "h200-sxm" },
      F.model, F.gpus(8), F.num("global_batch", "global batch", 64),
      F.num("seq_len", "seq len", 4096, { empty: true, hint: "empty: the model's context length" }),
      F.pick("precision", "precision", ["bf16", "fp8"], "bf16")],
    // The command takes the GPUs as one list, A first (the ratios are to it).
    toBody: (r) => {
      const { gpu_a: a, gpu_b: b, ...rest } = r;
      return { names: `${a},${b}`, ...rest };
    },
    fromUrl: (q) => {
      const [a, b] = (q.get("names") || "").split(",");
      if (a) q.set("gpu_a", a);
      if (b) q.set("gpu_b", b);
    },
  },
};
const PAGE_ORDER = ["infer-search", "infer", "search", "train", "recommend", "cost", "collective", "compare"];

let catalog = null; // {models, gpus}
let uploaded = null; // the parsed config.json object (train page)
let pinned = null; // {label, data}: plan A of the comparison
let current = null; // the answer drawn now

async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error ? json.error.message : `HTTP ${res.status}`);
  return json;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (v !== false && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function input(field, value) {
  const id = `f-${field.key}`;
  let control;
  if (field.kind === "model" || field.kind === "gpu" || field.kind === "select") {
    const items = field.kind === "model" ? catalog.models.map((m) => ({ id: m.id, label: `${m.id} (${m.name})` }))
      : field.kind === "gpu" ? catalog.gpus.filter((g) => g.is_gpu).map((g) => ({ id: g.id, label: g.id }))
        : field.choices.map((c) => ({ id: c, label: c === "" ? "default" : c }));
    control = el("select", { id, name: field.key });
    for (const it of items) control.append(el("option", { value: it.id, selected: String(it.id) === String(value) }, it.label));
  } else if (field.kind === "checkbox") {
    control = el("input", { id, name: field.key, type: "checkbox", checked: value === true || value === "true" });
  } else if (field.kind === "text") {
    control = el("input", { id, name: field.key, type: "text", value: value ?? "", placeholder: field.hint || "",
      "aria-describedby": field.hint ? `${id}-hint` : undefined });
  } else {
    control = el("input", { id, name: field.key, type: "number", min: "0", step: "any", value: value ?? "",
      placeholder: field.hint || "", "aria-describedby": field.hint ? `${id}-hint` : undefined });
  }
  const label = el("label", { for: id }, field.label);
  const box = el("div", { class: "field" }, label, control);
  if (field.hint) box.append(el("span", { class: "hint", id: `${id}-hint` }, field.hint));
  return box;
}

// The request body of the page's form: numbers as numbers; an empty box is left out (unset).
function request(page) {
  const r = {};
  for (const f of PAGES[page].fields) {
    const c = $(`f-${f.key}`);
    if (f.kind === "checkbox") { if (c.checked) r[f.key] = true; continue; }
    if (c.value === "") continue;
    r[f.key] = f.kind === "number" ? Number(c.value) : (f.key === "zero" ? Number(c.value) : c.value);
  }
  if (page === "train" && uploaded) { delete r.model; r.model_config = uploaded; }
  Object.assign(r, PAGES[page].fixed || {});
  return PAGES[page].toBody ? PAGES[page].toBody(r) : r;
}

function pageFromUrl() {
  const q = new URLSearchParams(location.search);
  const page = PAGES[q.get("page")] ? q.get("page") : "infer-search";
  if (PAGES[page].fromUrl) PAGES[page].fromUrl(q);
  return { page, values: q };
}

// The page and its form in the URL: the link opens this answer.
function writeUrl(page, body) {
  const q = new URLSearchParams({ page });
  const fixed = PAGES[page].fixed || {};
  for (const [k, v] of Object.entries(body)) if (k !== "model_config" && !(k in fixed)) q.set(k, String(v));
  history.replaceState(null, "", `${location.pathname}?${q}`);
  $("share").href = location.href;
}

function showError(msg) {
  $("error").textContent = msg;
  $("error").hidden = !msg;
}

function buildPage(page, values) {
  document.title = `gpuplan: ${PAGES[page].title}`;
  $("title").textContent = PAGES[page].title;
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.page === page) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  const form = $("form");
  form.replaceChildren();
  for (const f of PAGES[page].fields) {
    const v = values && values.has(f.key) ? values.get(f.key) : f.value;
    form.append(input(f, v));
  }
  if (page === "train") {
    const file = el("input", { id: "config", type: "file", accept: ".json,application/json" });
    const clear = el("button", { type: "button", id: "clear-config" }, "zoo model");
    file.addEventListener("change", async (ev) => {
      const chosen = ev.target.files[0];
      showError("");
      uploaded = null;
      if (!chosen) return;
      try {
        uploaded = JSON.parse(await chosen.text());
        $("f-model").disabled = true;
      } catch (e) {
        showError(`config.json: not valid JSON (${e.message})`);
      }
    });
    clear.addEventListener("click", () => { uploaded = null; file.value = ""; $("f-model").disabled = false; });
    form.append(el("div", { class: "field" }, el("label", { for: "config" }, "or config.json"), file), clear);
  }
  form.append(el("button", { type: "submit", id: "run" }, "Answer"));
  if (PAGES[page].compare) {
    const pin = el("button", { type: "button", id: "pin" }, "Keep as A, compare");
    pin.addEventListener("click", pinCurrent);
    form.append(pin);
  }
  $("layout").classList.remove("two");
  $("pinned").hidden = true;
  $("compare").hidden = true;
  $("current-report").replaceChildren();
  $("current-title").textContent = "";
  pinned = null;
  current = null;
}

// A point of infer-search's front, clicked: its figures, and a link to the serve page with
// that plan (the `infer` question of one replica at that load).
function selectFrontPoint(p) {
  const out = document.querySelector("[data-testid=front-selected]");
  const body = request("infer-search");
  const q = new URLSearchParams({ page: "infer", model: body.model, gpu: body.gpu, tp: p.tp, pp: p.pp, weights: p.weights, kv: p.kv,
    input_len: body.input_len ?? 1024, output_len: body.output_len ?? 256, concurrency: p.concurrency });
  out.replaceChildren(`${p.words}: ${fmt(p.output_tokens_per_s_per_gpu)} output tokens/s per GPU, ${fmt(p.output_tokens_per_s_per_user)} tokens/s per user (TPOT ${fmt(p.tpot_s * 1e3)} ms, TTFT ${fmt(p.ttft_s * 1e3)} ms)${p.meets_targets ? "" : "; misses a target"}. `,
    el("a", { href: `?${q}`, "data-testid": "front-open" }, "Open this plan on the serve page"));
}

async function answer(page) {
  showError("");
  $("status").textContent = "answering…";
  const body = request(page);
  writeUrl(page, body);
  try {
    const data = await api(PAGES[page].endpoint, body);
    current = data;
    renderReport($("current-report"), data, { onSelect: selectFrontPoint });
    $("status").textContent = "";
    if (page === "train") {
      const a = data.answer;
      $("current-title").textContent = pinned ? `B: tp ${a.plan.tp} · pp ${a.plan.pp} · dp ${a.plan.dp}` : "";
      $("compare").hidden = !pinned;
      if (pinned) {
        const pa = pinned.data.answer;
        $("diff").textContent = `A: ${pinned.data.headline}\nB: ${data.headline}\nB/A step time: ${fmt(a.step_time_s / pa.step_time_s, 4)}`;
      }
    }
  } catch (e) {
    $("status").textContent = "";
    showError(e.message);
  }
  // For the browser tests: how many answers (or errors) the page has drawn.
  $("ready").dataset.answers = String(Number($("ready").dataset.answers || 0) + 1);
  $("ready").hidden = false;
}

function pinCurrent() {
  if (!current) return;
  const a = current.answer;
  pinned = { label: `tp ${a.plan.tp} · pp ${a.plan.pp} · dp ${a.plan.dp}`, data: current };
  $("pinned").hidden = false;
  $("pinned-title").textContent = `A: ${pinned.label}`;
  $("layout").classList.add("two");
  renderReport($("pinned-report"), current);
}

async function init() {
  const [models, gpus] = await Promise.all([api("/api/models"), api("/api/gpus")]);
  catalog = { models: models.models, gpus: gpus.gpus };
  const nav = $("pages");
  for (const p of PAGE_ORDER) nav.append(el("a", { href: `?page=${p}`, "data-page": p }, PAGES[p].nav));
  const { page, values } = pageFromUrl();
  $("form").addEventListener("submit", (ev) => { ev.preventDefault(); answer(pageFromUrl().page); });
  buildPage(page, values);
  await answer(page);
}

init().catch((e) => { showError(e.message); $("ready").hidden = false; });
