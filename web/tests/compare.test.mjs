// Browser tests of the compare page of `gpuplan serve` and of `gpuplan compare --html`: two
// GPUs on one training question, the difference named in words (the CLI's sentence word for
// word), one ratio bar per figure the JSON holds; the URL answers again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { env, gpuplan, shots, work, fmt3, cliReport, assertReadable, assertNoOverlap } from "./harness.mjs";

const compareArgs = ["compare", "h100-sxm", "h200-sxm", "--model", "llama3.1-8b", "--gpus", "8", "--global-batch", "64", "--seq-len", "4096"];

async function checkRatios(page, root, want) {
  const known = want.figures.filter((f) => f.ratios[1] > 0);
  const chart = page.locator(`${root} [data-testid=chart-compare]`);
  assert.equal(await chart.locator("g[aria-label=bar] rect").count(), known.length);
  const labels = await chart.locator("g.ratio-label text").allTextContents();
  assert.deepEqual(labels.sort(), known.map((f) => `${fmt3(f.ratios[1])}×`).sort());
  assert.equal(await page.locator(`${root} [data-testid=table-compare] tr`).count(), want.figures.length + 1);
}

test("compare: two GPUs on one training question, the difference in words", async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.base}/?page=compare`);
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 0, null, { timeout: 60000 });
  await page.selectOption("#f-gpu_a", "h100-sxm");
  await page.selectOption("#f-gpu_b", "h200-sxm");
  await page.selectOption("#f-model", "llama3.1-8b");
  await page.fill("#f-gpus", "8");
  await page.fill("#f-global_batch", "64");
  await page.fill("#f-seq_len", "4096");
  await page.locator("#f-seq_len").press("Enter");
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 1, null, { timeout: 60000 });
  assert.equal(await page.locator("[data-testid=error]").isHidden(), true);
  const want = cliReport(compareArgs);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  assert.match(want.headline, /^Training Llama 3\.1 8B on 8 GPUs, H200 SXM 141GB is .* per step than H100 SXM5 80GB .* per million tokens/);
  await checkRatios(page, "#current-report", want);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-compare-gpus.png"), fullPage: false });
  assert.match(page.url(), /names=h100-sxm%2Ch200-sxm/);
  const again = await env.browser.newPage();
  await again.goto(page.url());
  await again.locator("#current-report [data-testid=answer]").waitFor({ timeout: 60000 });
  assert.equal(await again.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  assert.equal(await again.locator("#f-gpu_b").inputValue(), "h200-sxm");
  await again.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test("the compare report draws the same ratios offline", async () => {
  const file = join(work, "compare.html");
  execFileSync(gpuplan, [...compareArgs, "--html", file]);
  const want = cliReport(compareArgs);
  const context = await env.browser.newContext({ offline: true, viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-compare] svg").first().waitFor();
  assert.equal(await page.locator("[data-testid=answer]").textContent(), want.headline);
  await checkRatios(page, "#report", want);
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  if (shots) {
    await page.locator("[data-testid=chart-compare]").screenshot({ path: join(shots, "report-chart-compare.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.locator("[data-testid=chart-compare]").screenshot({ path: join(shots, "report-chart-compare-dark.png") });
  }
  await context.close();
});
