// Bundles the report and web UI scripts (with Observable Plot and its d3 modules) into one
// minified file each, and copies the page and style sheet: the assets the binary embeds.
// Usage: node build.mjs OUT_DIR (scripts/build-web.sh runs it).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const out = process.argv[2];
if (!out) throw new Error("usage: node build.mjs OUT_DIR");
mkdirSync(out, { recursive: true });
const common = { bundle: true, minify: true, format: "iife", target: ["es2020"], legalComments: "none", logLevel: "warning" };
await build({ ...common, entryPoints: ["src/report.js"], outfile: join(out, "report.js") });
await build({ ...common, entryPoints: ["src/app.js"], outfile: join(out, "app.js") });
copyFileSync("src/style.css", join(out, "style.css"));
copyFileSync("src/index.html", join(out, "index.html"));
