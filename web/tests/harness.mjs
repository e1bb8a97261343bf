// What the browser tests share: `gpuplan serve` on a free port and Debian's Chromium driven by
// playwright-core, started before a test file's tests and stopped after them; the CLI's answers
// to compare with; the checks every page and report passes (readable text, no overlapping
// labels). Environment: GPUPLAN (the binary), CHROMIUM (default /usr/bin/chromium), SCREENSHOTS
// (a folder: write the PNGs of docs/img/ there).
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

export const gpuplan = process.env.GPUPLAN;
assert.ok(gpuplan, "set GPUPLAN to the gpuplan binary");
export const shots = process.env.SCREENSHOTS || "";
export const work = mkdtempSync(join(tmpdir(), "gpuplan-browser-"));
let server;
// The server's address and the browser, once `before` has run.
export const env = { base: "", browser: null };

// The page's number format (web/src/charts.js fmt with 4 digits).
export const fmt3 = (x) => Number(x.toPrecision(3)).toLocaleString("en-US", { maximumFractionDigits: 20 });
export const fmt4 = (x) => Number(x.toPrecision(4)).toLocaleString("en-US", { maximumFractionDigits: 20 });

export const plan70b = ["--model", "llama3.1-70b", "--gpu", "h100-sxm", "--gpus", "64", "--tp", "8", "--pp", "2", "--sp",
  "--zero", "1", "--global-batch", "256", "--seq-len", "8192", "--recompute", "selective"];

export function cliReport(args) {
  return JSON.parse(execFileSync(gpuplan, [...args, "--report-data"], { encoding: "utf8" }));
}

export function cli(args) {
  return JSON.parse(execFileSync(gpuplan, [...args, "--json"], { encoding: "utf8" }));
}

// What a page shows: no raw field name ("plan.dp_shard", "ttft_target_s"), no scientific
// notation ("7.25e+4"); identifiers with digits ("gpu_8x_h100_sxm5", an instance) are names.
// A web address (a figure's source) is a citation, not a field name: left out of the scan.
export async function assertReadable(page, root) {
  const text = (await page.locator(root).innerText()).replace(/https?:\/\/\S+/g, "");
  const raw = text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) || [];
  assert.deepEqual(raw, [], `raw field names on the page: ${raw.join(", ")}`);
  const dotted = text.match(/\b(?:plan|best|pick|knee|answer)\.[a-z]\w*/g) || [];
  assert.deepEqual(dotted, [], `field paths on the page: ${dotted.join(", ")}`);
  const sci = text.match(/\b\d+(?:\.\d+)?e[+-]?\d+\b/gi) || [];
  assert.deepEqual(sci, [], `scientific notation on the page: ${sci.join(", ")}`);
}

// No two visible labels of a chart overlap (Plot's text marks, tick labels, axis labels).
export async function assertNoOverlap(page, root) {
  const clashes = await page.evaluate((sel) => {
    const out = [];
    for (const svg of document.querySelector(sel).querySelectorAll("svg")) {
      const boxes = [];
      for (const t of svg.querySelectorAll("text")) {
        if (t.closest("[aria-label=tip]") || t.getAttribute("visibility") === "hidden") continue;
        const b = t.getBoundingClientRect();
        if (b.width === 0 || b.height === 0) continue;
        for (const o of boxes) {
          const w = Math.min(b.right, o.b.right) - Math.max(b.left, o.b.left);
          const h = Math.min(b.bottom, o.b.bottom) - Math.max(b.top, o.b.top);
          if (w > 1 && h > 1) out.push(`"${t.textContent}" over "${o.text}"`);
        }
        boxes.push({ b, text: t.textContent });
      }
    }
    return out;
  }, root);
  assert.deepEqual(clashes, [], `overlapping labels: ${clashes.join("; ")}`);
}

before(async () => {
  let base;
  server = spawn(gpuplan, ["serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  base = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${seen}`)), 20000);
    server.stdout.on("data", (chunk) => {
      seen += chunk;
      const m = /gpuplan serve: (http:\/\/127\.0\.0\.1:\d+)\//.exec(seen);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.on("exit", (code) => reject(new Error(`serve exited ${code}: ${seen}`)));
  });
  env.base = base;
  env.browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    // Without the background-networking flags Chromium's own connections get refused in a
    // sandboxed CI and slow the start; --no-sandbox because CI runs as root.
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  if (env.browser) await env.browser.close();
  if (server) server.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
});

