// Browser tests of the search page's filters by parallelism and the serve page's latency
// percentiles: the filtered scatter and table hold exactly the JSON's plans inside the ranges
// (each keeping its rank), and the percentiles are the simulation's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { env, shots, fmt3, cliReport, assertReadable, assertNoOverlap } from "./harness.mjs";

async function open(query) {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.base}/?${query}`);
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 0, null, { timeout: 60000 });
  assert.equal(await page.locator("[data-testid=error]").isHidden(), true);
  return { page, errors };
}

test("search: the ranked plans filtered by parallelism", async () => {
  const { page, errors } = await open("page=search&model=llama3.1-8b&gpu=h100-sxm&gpus=16&global_batch=128&seq_len=4096&top=20");
  const want = cliReport(["search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "16", "--global-batch", "128", "--seq-len", "4096",
    "--top", "20"]);
  const top = want.answer.top.map((p, i) => ({ ...p, rank: i + 1 }));
  // A degree the plans differ in; keep only its smallest value, by keyboard.
  const degree = ["tp", "pp", "dp", "cp", "ep"].find((d) => new Set(top.map((p) => p.plan[d])).size > 1);
  assert.ok(degree, "the ranked plans differ in some degree");
  const low = Math.min(...top.map((p) => p.plan[degree]));
  const max = page.locator(`[data-testid=filter-${degree}-max]`);
  await max.focus();
  await max.selectOption(String(low));
  const keep = top.filter((p) => p.plan[degree] <= low);
  assert.ok(keep.length > 0 && keep.length < top.length);
  const ringed = keep.some((p) => p.rank === 1) ? 1 : 0;
  assert.equal(await page.locator("#current-report [data-testid=chart-search] circle").count(), keep.length + ringed);
  const ranks = await page.locator("#current-report [data-testid=table-search] tr td:first-child").allTextContents();
  assert.deepEqual(ranks, keep.map((p) => String(p.rank)));
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-search-filtered.png"), fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});

test("serve: the simulation's latency percentiles", async () => {
  const { page, errors } = await open("page=infer&model=llama3.1-8b&gpu=h100-sxm&tp=1&pp=1&input_len=1024&output_len=256&concurrency=32&request_rate=5");
  const want = cliReport(["infer", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--tp", "1", "--pp", "1", "--input-len", "1024", "--output-len", "256",
    "--concurrency", "32", "--request-rate", "5"]);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  const sim = want.answer.simulation;
  const chart = page.locator("#current-report [data-testid=chart-percentiles]");
  assert.equal(await chart.locator("g.percentile-point path, g.percentile-point circle").count(), 12);
  const cells = await chart.locator("table tr").nth(1).locator("td").allTextContents();
  assert.deepEqual(cells, ["time to first token", ...["mean", "p50", "p90", "p99"].map((p) => fmt3(sim.ttft_s[p] * 1e3))]);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await chart.screenshot({ path: join(shots, "ui-serve-percentiles.png") });
  assert.deepEqual(errors, []);
  await page.close();
});

test("every page lists the defaults its answer rests on, readable", async () => {
  const { page, errors } = await open("page=train&model=llama3.1-8b&gpu=h100-sxm&gpus=8&seq_len=");
  const want = cliReport(["train", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--tp", "1", "--pp", "1", "--cp", "1",
    "--zero", "1", "--micro-batch", "1", "--global-batch", "64", "--recompute", "selective", "--precision", "bf16"]);
  const defaults = want.assumptions.filter((r) => r.group === "defaults (not asked)");
  assert.ok(defaults.length >= 2, "the train answer rests on defaults");
  const table = page.locator("#current-report [data-testid=table-inputs]");
  assert.match(await table.textContent(), /defaults \(not asked\)/);
  for (const r of defaults) assert.ok((await table.textContent()).includes(`${r.label}${r.value}`), r.label);
  await assertReadable(page, "#current-report");
  assert.deepEqual(errors, []);
  await page.close();
});
