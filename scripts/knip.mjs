#!/usr/bin/env node
/**
 * The dead-code step of `npm run lint`: knip (knip.json names the entry points) over files,
 * exports, types and dependencies.
 *
 *   node scripts/knip.mjs          fails (exit 1) and lists the findings when there is one
 *                                  (what "lint" runs)
 *   node scripts/knip.mjs --warn   prints one line counting them and exits 0
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const warn = process.argv.includes("--warn");
const bin = fileURLToPath(new URL("../node_modules/knip/bin/knip.js", import.meta.url));
const args = [bin, "--no-progress", ...(warn ? ["--reporter", "json"] : [])];
const run = spawnSync(process.execPath, args, { encoding: "utf8", stdio: warn ? "pipe" : "inherit", maxBuffer: 1 << 26 });
if (run.error) throw run.error;
if (!warn) process.exit(run.status ?? 1);

let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  process.stderr.write(run.stdout + run.stderr);
  process.exit(run.status || 1);
}
const counts = new Map();
const add = (kind, n) => n && counts.set(kind, (counts.get(kind) ?? 0) + n);
add("unused files", report.files?.length ?? 0);
for (const issue of report.issues ?? []) {
  for (const [kind, found] of Object.entries(issue)) {
    if (kind === "file") continue;
    add(kind, Array.isArray(found) ? found.length : Object.keys(found ?? {}).length);
  }
}
const total = [...counts.values()].reduce((a, b) => a + b, 0);
if (total === 0) console.log("knip: nothing unused");
else
  console.log(
    `knip: ${[...counts].map(([k, n]) => `${n} ${k}`).join(", ")} (not enforced: npx knip lists them)`,
  );
