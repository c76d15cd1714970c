#!/usr/bin/env node
/**
 * Builds dist/: tsc (tsconfig.build.json), then the CLI bundle (scripts/bundle.mjs).
 *
 * With --if-stale (install's `prepare`, `npm run demo`), it builds only when dist/cli/bin.js is
 * missing or older than something it is built from, and otherwise says nothing: `npm install`
 * builds once, and nothing after it (npm link, npm pack, the demo) builds again.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const BIN = join(root, "dist/cli/bin.js");
const SOURCE_DIRS = ["src", "jobs", "bench", "chaos"];
const SOURCE_FILES = ["package.json", "tsconfig.json", "tsconfig.build.json", "scripts/bundle.mjs"];

function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = 0;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

function isStale() {
  const built = statSync(BIN, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  const sources = Math.max(...SOURCE_DIRS.map((d) => newest(join(root, d))), ...SOURCE_FILES.map((f) => newest(join(root, f))));
  return sources > built;
}

if (process.argv.includes("--if-stale") && !isStale()) process.exit(0);

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
await import("./bundle.mjs");
