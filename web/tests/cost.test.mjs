// Browser tests of the cost page of `gpuplan serve` and of `gpuplan cost --html`: fill the form
// by keyboard, get the answer, and compare it with the CLI's `--report-data` (the sentence, the
// break-even, one bar per offer); the URL answers again; no raw names, no overlapping labels.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { env, gpuplan, shots, work, fmt3, cliReport, assertReadable, assertNoOverlap } from "./harness.mjs";

const costArgs = ["cost", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "100000000000"];

// What the figures must show of the CLI's answer: one bar per current offer (16 at most), the
// break-even ringed with its months, one table row per current offer.
async function checkCostFigures(page, root, want) {
  const current = want.answer.rows.filter((r) => !r.historical);
  const bars = page.locator(`${root} [data-testid=chart-cost-offers] g[aria-label=bar] rect`);
  assert.equal(await bars.count(), Math.min(16, current.length));
  assert.equal(await page.locator(`${root} [data-testid=table-cost] tr`).count(), current.length + 1);
  const o = want.ownership.over_time;
  assert.ok(o.breaks_even);
  const time = page.locator(`${root} [data-testid=chart-cost-time]`);
  assert.match(await time.textContent(), new RegExp(`break-even: ${fmt3(o.break_even_months)} months`));
  // Two lines (owning, renting), one ringed break-even.
  assert.equal(await time.locator("g[aria-label=line] path").count(), 2);
  assert.equal(await time.locator("g[aria-label=dot] circle").count(), 1);
  await page.locator(`${root} [data-testid=chart-ownership] svg`).first().waitFor();
}

test("cost: what the run costs on each offer, and when owning breaks even", async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.base}/?page=cost`);
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 0, null, { timeout: 60000 });
  // By keyboard: fill the boxes, Enter in the last one.
  await page.selectOption("#f-model", "llama3.1-70b");
  await page.selectOption("#f-gpu", "h100-sxm");
  await page.fill("#f-gpus", "64");
  await page.fill("#f-tokens", "100000000000");
  await page.locator("#f-tokens").press("Enter");
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 1, null, { timeout: 60000 });
  assert.equal(await page.locator("[data-testid=error]").isHidden(), true);
  const want = cliReport(costArgs);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  assert.match(want.headline, /^Training Llama 3\.1 70B on 64 H100 SXM5 80GB for 100 billion tokens takes .* on-demand at .*; .*breaks even .* after .* months of use around the clock/);
  await checkCostFigures(page, "#current-report", want);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-cost.png"), fullPage: false });
  // The URL is the question; empty boxes are not in it.
  assert.match(page.url(), /page=cost/);
  assert.match(page.url(), /tokens=100000000000/);
  assert.doesNotMatch(page.url(), /seq_len|global_batch/);
  const again = await env.browser.newPage();
  await again.goto(page.url());
  await again.locator("#current-report [data-testid=answer]").waitFor({ timeout: 60000 });
  assert.equal(await again.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  await again.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test("the cost report draws the same figures offline", async () => {
  const file = join(work, "cost.html");
  execFileSync(gpuplan, [...costArgs, "--html", file]);
  const want = cliReport(costArgs);
  const context = await env.browser.newContext({ offline: true, viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-cost-time] svg").first().waitFor();
  assert.equal(await page.locator("[data-testid=answer]").textContent(), want.headline);
  await checkCostFigures(page, "#report", want);
  assert.deepEqual(requests.filter((u) => !u.startsWith("file://") && !u.startsWith("data:")), []);
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  if (shots) {
    await page.locator("[data-testid=chart-cost-time]").screenshot({ path: join(shots, "report-chart-cost-time.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.locator("[data-testid=chart-cost-offers]").screenshot({ path: join(shots, "report-chart-cost-offers-dark.png") });
  }
  await context.close();
});
