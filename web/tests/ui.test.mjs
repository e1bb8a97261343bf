// Browser tests of the train page of `gpuplan serve` and of the offline HTML reports, in
// Debian's Chromium (node --test; scripts/test-browser.sh runs them from ctest as web.browser).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { env, gpuplan, shots, work, fmt3, fmt4, plan70b, cli, cliReport, assertReadable, assertNoOverlap } from "./harness.mjs";

async function openUi() {
  const page = await env.browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.base}/?page=train`);
  await page.locator("[data-testid=ready]").waitFor({ state: "attached" });
  await page.locator("#current-report [data-testid=step-time]").waitFor();
  return { page, errors };
}

async function choosePlan(page, p) {
  await page.selectOption("#f-model", p.model);
  await page.selectOption("#f-gpu", p.gpu);
  for (const f of ["gpus", "tp", "pp", "global_batch", "seq_len"]) await page.fill(`#f-${f}`, String(p[f]));
  await page.selectOption("#f-zero", String(p.zero));
  await page.selectOption("#f-recompute", p.recompute);
  await page.setChecked("#f-sp", p.sp);
  await page.click("#run");
}

const p70b = { model: "llama3.1-70b", gpu: "h100-sxm", gpus: 64, tp: 8, pp: 2, global_batch: 256, seq_len: 8192, zero: 1, recompute: "selective", sp: true };

test("the page shows the CLI's step time and bottleneck for a chosen plan", async () => {
  const { page, errors } = await openUi();
  const want = cli(["train", ...plan70b]);
  await choosePlan(page, p70b);
  const step = page.locator("#current-report [data-testid=step-time]");
  await assert.doesNotReject(step.filter({ hasText: `${fmt4(want.step_time_s)} s` }).waitFor({ timeout: 15000 }));
  assert.equal(await page.locator("#current-report [data-testid=bottleneck]").textContent(), want.bottleneck);
  // Every chart drew an SVG with labelled axes.
  for (const id of ["chart-step", "chart-memory", "chart-roofline"]) {
    const svg = page.locator(`#current-report [data-testid=${id}] svg`).first();
    await svg.waitFor();
  }
  assert.match(await page.locator("#current-report [data-testid=chart-step]").textContent(), /time per step \(s\)/);
  assert.match(await page.locator("#current-report [data-testid=chart-memory]").textContent(), /memory per GPU \(GiB\)/);
  assert.match(await page.locator("#current-report [data-testid=chart-roofline]").textContent(), /FLOP\/byte/);
  const words = cliReport(["train", ...plan70b]).headline;
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), words);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-train.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a bad config.json shows the server's message", async () => {
  const { page } = await openUi();
  const bad = join(work, "config.json");
  writeFileSync(bad, JSON.stringify({ model_type: "llama", num_hidden_layers: 2 }));
  await page.setInputFiles("#config", bad);
  await page.click("#run");
  const error = page.locator("[data-testid=error]");
  await error.filter({ hasText: "hidden_size" }).waitFor({ timeout: 15000 });
  assert.match(await error.textContent(), /config\.json/);
  // Not JSON at all: the page says so before asking the server.
  const broken = join(work, "broken.json");
  writeFileSync(broken, "{ not json");
  await page.setInputFiles("#config", broken);
  await error.filter({ hasText: "not valid JSON" }).waitFor({ timeout: 5000 });
  await page.close();
});

test("two plans side by side", async () => {
  const { page, errors } = await openUi();
  await choosePlan(page, p70b);
  const a = cli(["train", ...plan70b]);
  await page.locator("#current-report [data-testid=step-time]").filter({ hasText: `${fmt4(a.step_time_s)} s` }).waitFor();
  await page.click("#pin");
  const pB = { ...p70b, tp: 4, pp: 4 };
  const b = cli(["train", ...plan70b.map((x, i) => (plan70b[i - 1] === "--tp" ? "4" : plan70b[i - 1] === "--pp" ? "4" : x))]);
  await choosePlan(page, pB);
  await page.locator("#current-report [data-testid=step-time]").filter({ hasText: `${fmt4(b.step_time_s)} s` }).waitFor({ timeout: 15000 });
  assert.equal(await page.locator("#pinned-report [data-testid=step-time]").textContent(), `${fmt4(a.step_time_s)} s`);
  const compare = await page.locator("[data-testid=compare]").textContent();
  assert.match(compare, new RegExp(`B/A step time: ${fmt4(b.step_time_s / a.step_time_s).replace(".", "\\.")}`));
  if (shots) await page.screenshot({ path: join(shots, "ui-compare.png"), fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});

test("the offline HTML report draws every chart with no network request", async () => {
  const file = join(work, "report.html");
  execFileSync(gpuplan, ["train", ...plan70b, "--html", file]);
  const want = cli(["train", ...plan70b]);
  const context = await env.browser.newContext({ offline: true, viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-roofline] svg").first().waitFor();
  assert.equal(await page.locator("[data-testid=step-time]").textContent(), `${fmt4(want.step_time_s)} s`);
  assert.equal(await page.locator("[data-testid=bottleneck]").textContent(), want.bottleneck);
  assert.deepEqual(requests.filter((u) => !u.startsWith("file://") && !u.startsWith("data:")), []);
  assert.deepEqual(errors, []);
  assert.equal(await page.locator("[data-testid=answer]").textContent(), cliReport(["train", ...plan70b]).headline);
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  // Dark mode and print render too (the text colour follows the scheme).
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await page.evaluate(() => getComputedStyle(document.body).color);
  await page.emulateMedia({ media: "print", colorScheme: "dark" });
  const print = await page.evaluate(() => getComputedStyle(document.body).color);
  assert.notEqual(dark, print);
  assert.equal(print, "rgb(0, 0, 0)");
  if (shots) {
    await page.emulateMedia({ media: "screen", colorScheme: "light" });
    for (const id of ["chart-step", "chart-memory", "chart-roofline"]) {
      await page.locator(`[data-testid=${id}]`).screenshot({ path: join(shots, `report-${id}.png`) });
    }
    await page.emulateMedia({ media: "screen", colorScheme: "dark" });
    await page.locator("[data-testid=chart-step]").screenshot({ path: join(shots, "report-chart-step-dark.png") });
  }
  await context.close();
});

test("the recommend report draws the Pareto front and scaling", async () => {
  const file = join(work, "recommend.html");
  execFileSync(gpuplan, ["recommend", "--model", "llama3-8b", "--tokens", "100B", "--gpus-max", "64", "--html", file]);
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 900 } });
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-pareto] svg").first().waitFor();
  await page.locator("[data-testid=chart-scaling] svg").first().waitFor();
  assert.match(await page.locator("[data-testid=chart-pareto]").textContent(), /cost \(USD\)/);
  assert.match(await page.locator("[data-testid=chart-scaling]").textContent(), /MFU \(%\)/);
  assert.match(await page.locator("[data-testid=answer]").textContent(), /^Train Llama 3 8B on 100 billion tokens with /);
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  if (shots) {
    await page.locator("[data-testid=chart-pareto]").screenshot({ path: join(shots, "report-chart-pareto.png") });
    await page.locator("[data-testid=chart-scaling]").screenshot({ path: join(shots, "report-chart-scaling.png") });
  }
  await page.close();
});

test("the infer report draws the throughput–latency curve", async () => {
  const file = join(work, "infer.html");
  const args = ["infer", "--model", "llama3.1-8b", "--gpu", "h200-sxm", "--input-len", "2048", "--output-len", "256", "--concurrency", "64"];
  execFileSync(gpuplan, [...args, "--html", file]);
  const want = cli(args);
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 900 } });
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-serving] svg").first().waitFor();
  assert.equal(await page.locator("[data-testid=tpot]").textContent(), `${fmt4(want.tpot_s * 1e3)} ms`);
  assert.match(await page.locator("[data-testid=chart-serving]").textContent(), /TPOT \(ms per output token\)/);
  assert.equal(await page.locator("[data-testid=answer]").textContent(), cliReport(args).headline);
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  if (shots) await page.locator("[data-testid=chart-serving]").screenshot({ path: join(shots, "report-chart-serving.png") });
  await page.close();
});

test("the infer-search report lists the best disaggregated pair per prefill GPU", async () => {
  const file = join(work, "infer-search-disagg.html");
  const args = ["infer-search", "--model", "llama3.1-70b", "--gpu", "h200-sxm", "--input-len", "4096", "--output-len", "512",
    "--tpot-ms", "50", "--objective", "cost", "--disagg-prefill-gpus", "h200-sxm,b200,h100-sxm"];
  execFileSync(gpuplan, [...args, "--html", file]);
  const want = cli(args).disaggregated;
  assert.ok(want.found && want.best_per_prefill_gpu.length === 3);
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 900 } });
  await page.goto(`file://${file}`);
  const table = page.locator("[data-testid=table-disagg]");
  await table.waitFor();
  assert.equal(await table.locator("tr").count(), 1 + want.best_per_prefill_gpu.length);
  const best = await page.locator("[data-testid=disagg-best] td").allTextContents();
  assert.equal(best[0], want.best.prefill_gpu);
  assert.equal(best[8], fmt3(want.best.usd_per_million_output_tokens));
  await assertReadable(page, "#report");
  await page.close();
});

test("the infer-search report draws the best plan's curve with the SLO lines", async () => {
  const file = join(work, "infer-search.html");
  const args = ["infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--input-len", "2048", "--output-len", "256", "--tpot-ms", "50", "--ttft-ms", "2000"];
  execFileSync(gpuplan, [...args, "--html", file]);
  const want = cli(args);
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 900 } });
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-serving] svg").first().waitFor();
  assert.equal(await page.locator("[data-testid=tpot]").textContent(), `${fmt4(want.best.tpot_s * 1e3)} ms`);
  assert.match(await page.locator("[data-testid=chart-serving]").textContent(), /Dashed orange: the SLO targets/);
  const data = cliReport(args);
  assert.equal(await page.locator("[data-testid=answer]").textContent(), data.headline);
  // The front: one dot per plan of the JSON's front; a row's button names its plan.
  assert.equal(await page.locator("[data-testid=chart-front] g.front-point circle").count(), data.front.length);
  await page.click("[data-testid=chart-front] summary");
  await page.click("[data-testid=front-0]");
  assert.match(await page.locator("[data-testid=front-selected]").textContent(), new RegExp(`^${data.front[0].words.replace(/[()×]/g, ".")}`));
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  if (shots) await page.locator("[data-testid=chart-serving]").screenshot({ path: join(shots, "report-chart-serving-slo.png") });
  await page.close();
});
