#!/usr/bin/env node
/**
 * The npm registry reachable here does not serve every platform's build of some optional
 * native packages (Biome's CLI, msgpackr-extract), so `npm install` cannot record them in
 * package-lock.json and `npm ci` then refuses the lock ("Missing: ... from lock file").
 * This adds a lock entry, marked optional with the os/cpu its name states, for each such
 * package. npm never fetches an optional package of another platform, so none is downloaded.
 * Run after changing dependencies: `node scripts/complete-lockfile.mjs`.
 */
import { readFileSync, writeFileSync } from "node:fs";

const lockPath = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, "utf8"));
const packages = lock.packages;

const OS = ["android", "darwin", "linux", "win32", "freebsd"];
const CPU = { x64: "x64", arm64: "arm64", arm: "arm", ia32: "ia32" };

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => p in CPU);
  return os && cpu ? { os: [os], cpu: [CPU[cpu]], ...(parts.includes("musl") ? { libc: ["musl"] } : {}) } : null;
}

let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (packages[key] || packages[`${path}/node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    packages[key] = { version, ...platform, ...(meta.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entr${added === 1 ? "y" : "ies"}`);
