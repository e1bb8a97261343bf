// Browser tests of the collectives page of `gpuplan serve` and of `gpuplan collective --html`:
// fill the form by keyboard, get the answer, compare the curve with the CLI's `--report-data`
// (one point per size, one shaded region per algorithm/protocol run, the sentence word for
// word); no raw names, no overlapping labels.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { env, gpuplan, shots, work, cliReport, assertReadable, assertNoOverlap } from "./harness.mjs";

const sweepArgs = ["collective", "--op", "allreduce", "--gpus", "16", "--system", "dgx-h100", "--sweep"];

async function checkCurve(page, root, want) {
  const chart = page.locator(`${root} [data-testid=chart-collective]`);
  assert.equal(await chart.locator("g.size-point circle").count(), want.answer.rows.length);
  assert.equal(await chart.locator("g[aria-label=rect] rect").count(), want.regions.length);
  assert.ok(want.regions.length >= 2, "several algorithm regions");
  assert.match(await chart.textContent(), /bus bandwidth \(GB\/s\)/);
  assert.match(await chart.textContent(), new RegExp(`Between nodes: ${want.answer.transport.name.replace(/[()]/g, ".")}`));
  assert.equal(await page.locator(`${root} [data-testid=table-collective] tr`).count(), want.answer.rows.length + 1);
}

test("collectives: bus bandwidth against message size with the algorithm regions", async () => {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.base}/?page=collective`);
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 0, null, { timeout: 60000 });
  await page.selectOption("#f-op", "allreduce");
  await page.fill("#f-gpus", "16");
  await page.fill("#f-system", "dgx-h100");
  await page.locator("#f-system").press("Enter");
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 1, null, { timeout: 60000 });
  assert.equal(await page.locator("[data-testid=error]").isHidden(), true);
  const want = cliReport(sweepArgs);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  await checkCurve(page, "#current-report", want);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-collective.png"), fullPage: false });
  assert.match(page.url(), /page=collective/);
  assert.doesNotMatch(page.url(), /sweep|nodes|fabric/);
  // A bad system is the CLI's message.
  await page.fill("#f-system", "no-such-system");
  await page.locator("#f-system").press("Enter");
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 2, null, { timeout: 60000 });
  assert.match(await page.locator("[data-testid=error]").textContent(), /no-such-system/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the collective report draws the same curve offline", async () => {
  const file = join(work, "collective.html");
  execFileSync(gpuplan, [...sweepArgs, "--html", file]);
  const want = cliReport(sweepArgs);
  const context = await env.browser.newContext({ offline: true, viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  await page.goto(`file://${file}`);
  await page.locator("[data-testid=chart-collective] svg").first().waitFor();
  assert.equal(await page.locator("[data-testid=answer]").textContent(), want.headline);
  await checkCurve(page, "#report", want);
  await assertReadable(page, "#report");
  await assertNoOverlap(page, "#report");
  if (shots) {
    await page.locator("[data-testid=chart-collective]").screenshot({ path: join(shots, "report-chart-collective.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.locator("[data-testid=chart-collective]").screenshot({ path: join(shots, "report-chart-collective-dark.png") });
  }
  await context.close();
});
