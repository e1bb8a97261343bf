// Browser tests of the question pages of `gpuplan serve` other than train: fill the form, get
// the answer, and check the page against the CLI's own answer (`--report-data`, the object the
// page draws): the sentence, the figure's points, the tables; the URL holds the question, so
// the link answers again; no raw field names and no overlapping labels.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { env, shots, fmt3, fmt4, cliReport, assertReadable, assertNoOverlap } from "./harness.mjs";

async function openPage(name, query = "") {
  const page = await env.browser.newPage({ viewport: { width: 1400, height: 1100 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.base}/?page=${name}${query}`);
  await page.waitForFunction(() => Number(document.getElementById("ready").dataset.answers) > 0, null, { timeout: 60000 });
  return { page, errors };
}

// Types `values` into the page's form (selects by value, boxes by text; "" empties a box) and
// presses Enter in the last box, as a keyboard user would, then waits for the new sentence.
async function ask(page, values) {
  const before = Number(await page.locator("[data-testid=ready]").getAttribute("data-answers"));
  for (const [key, v] of Object.entries(values)) {
    const box = page.locator(`#f-${key}`);
    if ((await box.evaluate((e) => e.tagName)) === "SELECT") await box.selectOption(String(v));
    else await box.fill(String(v));
  }
  await page.locator(`#f-${Object.keys(values).at(-1)}`).press("Enter");
  await page.waitForFunction((old) => Number(document.getElementById("ready").dataset.answers) > old, before, { timeout: 60000 });
  assert.equal(await page.locator("[data-testid=error]").isHidden(), true, await page.locator("[data-testid=error]").textContent());
}

test("serve, best plan: the Pareto front of the search, each point a plan one can open", async () => {
  const { page, errors } = await openPage("infer-search");
  await ask(page, { model: "llama3.1-70b", gpu: "h100-sxm", gpus_max: 8, input_len: 2048, output_len: 256, ttft_ms: "", tpot_ms: 50 });
  const want = cliReport(["infer-search", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus-max", "8", "--input-len", "2048",
    "--output-len", "256", "--tpot-ms", "50"]);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  const front = page.locator("#current-report [data-testid=chart-front]");
  assert.equal(await front.locator("g.front-point circle").count(), want.front.length);
  assert.ok(want.front.length >= 3, "a front of several plans");
  assert.match(await front.textContent(), /TPOT ≤ 50 ms/);
  // The chosen plan is ringed and is the answer's.
  assert.equal(want.front.filter((p) => p.chosen).length, 1);
  // A point's row: its plan in words, and a link to that plan on the serve page.
  await front.locator("summary").click();
  const last = want.front.length - 1;
  await page.click(`[data-testid=front-${last}]`);
  const shown = await page.locator("[data-testid=front-selected]").textContent();
  assert.ok(shown.startsWith(want.front[last].words), shown);
  assert.ok(shown.includes(`${fmt3(want.front[last].output_tokens_per_s_per_gpu)} output tokens/s per GPU`), shown);
  // Clicking a dot selects its plan too.
  const dot = front.locator("g.front-point circle").first();
  await dot.click({ force: true });
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) {
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(shots, "ui-serve-pareto.png"), clip: { x: 0, y: 0, width: 1400, height: 1050 } });
  }
  // The URL is the question: opening it answers the same.
  const url = page.url();
  assert.match(url, /page=infer-search/);
  assert.match(url, /tpot_ms=50/);
  assert.doesNotMatch(url, /ttft_ms/);
  const again = await env.browser.newPage();
  await again.goto(url);
  await again.locator("#current-report [data-testid=answer]").waitFor({ timeout: 60000 });
  assert.equal(await again.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  await again.close();
  // The link of a point opens the serve page with that plan, answered.
  await front.locator("details").evaluate((d) => { d.open = true; });
  await page.click(`[data-testid=front-${last}]`);
  await page.click("[data-testid=front-open]");
  await page.locator("#current-report [data-testid=chart-serving]").waitFor({ timeout: 60000 });
  assert.match(page.url(), /page=infer/);
  assert.equal(await page.locator("#f-tp").inputValue(), String(want.front[last].tp));
  assert.deepEqual(errors, []);
  await page.close();
});

test("serve: one plan's latency and throughput against load, and its KV memory", async () => {
  const { page, errors } = await openPage("infer");
  await ask(page, { model: "llama3.1-8b", gpu: "h200-sxm", tp: 1, pp: 1, input_len: 2048, output_len: 256, concurrency: 64 });
  const args = ["infer", "--model", "llama3.1-8b", "--gpu", "h200-sxm", "--tp", "1", "--pp", "1", "--input-len", "2048", "--output-len", "256",
    "--concurrency", "64"];
  const want = cliReport(args);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  assert.equal(await page.locator("#current-report [data-testid=tpot]").textContent(), `${fmt4(want.answer.tpot_s * 1e3)} ms`);
  // One dot per feasible point of the curve (plus the ringed answer) in the throughput chart.
  const feasible = want.curve.filter((p) => p.feasible).length;
  const dots = await page.locator("#current-report [data-testid=chart-serving] svg").first().locator("circle").count();
  assert.equal(dots, feasible + 1);
  await page.locator("#current-report [data-testid=chart-memory] svg").first().waitFor();
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-serve.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("search: the ranked plans as a table and a scatter, the best ringed", async () => {
  const { page, errors } = await openPage("search");
  await ask(page, { model: "llama3.1-8b", gpu: "h100-sxm", gpus: 8, global_batch: 64, seq_len: 4096, top: 10 });
  const want = cliReport(["search", "--model", "llama3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--global-batch", "64", "--seq-len", "4096",
    "--top", "10"]);
  assert.equal(await page.locator("#current-report [data-testid=answer]").textContent(), want.headline);
  // The plans' dots, then the ring around the best (the legend's swatches are squares).
  assert.equal(await page.locator("#current-report [data-testid=chart-search] circle").count(), want.answer.top.length + 1);
  assert.equal(await page.locator("#current-report [data-testid=table-search] tr").count(), want.answer.top.length + 1);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-search.png"), fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});

test("an empty seq len is sent as unset, not as a number", async () => {
  const { page } = await openPage("search");
  const sent = [];
  page.on("request", (r) => { if (r.url().endsWith("/api/report/search")) sent.push(JSON.parse(r.postData())); });
  await ask(page, { model: "llama3.1-8b", gpus: 8, global_batch: 64, seq_len: "" });
  assert.equal(sent.length, 1);
  assert.equal("seq_len" in sent[0], false);
  assert.doesNotMatch(page.url(), /seq_len/);
  await page.close();
});

test("recommend: GPUs and clouds against time and cost", async () => {
  const { page, errors } = await openPage("recommend");
  await ask(page, { model: "llama3.1-8b", tokens: 1e9, gpus_max: 8, global_batch: 256, seq_len: 4096, time_limit: 1 });
  await page.locator("#current-report [data-testid=chart-pareto] svg").first().waitFor();
  assert.match(await page.locator("#current-report [data-testid=answer]").textContent(), /^Train Llama 3\.1 8B on 1 billion tokens with /);
  await assertReadable(page, "#current-report");
  await assertNoOverlap(page, "#current-report");
  if (shots) await page.screenshot({ path: join(shots, "ui-recommend.png"), fullPage: false });
  assert.deepEqual(errors, []);
  await page.close();
});
