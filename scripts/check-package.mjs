#!/usr/bin/env node
/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball (into a
 * private prefix, so the machine's global packages are left alone), then `tas-sync demo` and
 * `tas-sync query` in an empty directory far from the checkout. Needs the npm registry (the
 * dependencies are installed from it), so it is not part of `npm test`: `npm run check:package`.
 * Exits 1 on the first thing that does not hold; prints what it measured.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "tas-package-"));
const prefix = join(work, "prefix");
const empty = join(work, "elsewhere");
mkdirSync(empty);
const keep = process.argv.includes("--keep");

function step(title, fn) {
  const start = process.hrtime.bigint();
  const result = fn();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${title}: ${seconds.toFixed(2)} s`);
  return result;
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, TAS_CONFIG: "" } });
  if (r.status !== 0) {
    console.error(`FAILED: ${cmd} ${args.join(" ")} (exit ${r.status})\n${r.stdout}\n${r.stderr}`);
    process.exit(1);
  }
  return r;
}

function check(what, ok) {
  if (!ok) {
    console.error(`FAILED: ${what}`);
    process.exit(1);
  }
  console.log(`ok: ${what}`);
}

try {
  step("npm pack", () => run("npm", ["pack", "--pack-destination", work], root));
  const tarball = readdirSync(work).find((f) => /^tas-sync-.*\.tgz$/.test(f));
  check("npm pack made a tarball", tarball !== undefined);
  const install = step("npm install -g (private prefix) of the tarball", () =>
    run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "--foreground-scripts", join(work, tarball)], empty),
  );
  // With --foreground-scripts npm prints "> tas-sync@x prepare" before running a script of ours.
  check("the install ran no script of tas-sync (no build)", !/> tas-sync@\S+ (prepare|install|postinstall)/.test(install.stdout + install.stderr));
  const bin = join(prefix, "bin", "tas-sync");
  const help = step("tas-sync --help", () => run(bin, ["--help"], empty));
  check("tas-sync --help lists the commands", help.stdout.includes("Commands:"));
  const demo = step("tas-sync demo --plans 20 (in an empty directory)", () =>
    run(bin, ["demo", "--plans", "20", "--log-level", "warn"], empty),
  );
  check("the demo synced both companies", /company 5251: succeeded/.test(demo.stdout) && /company 5252: succeeded/.test(demo.stdout));
  const query = step("tas-sync query", () =>
    run(bin, ["query", "--db", join(empty, "tas-demo.db"), "--format", "csv", "SELECT count(*) AS plans FROM plans"], empty),
  );
  check("the query reads the demo's 40 plans", query.stdout === "plans\r\n40\r\n");
  const version = execFileSync(process.execPath, ["-e", "console.log(require(process.argv[1]).version)", join(prefix, "lib/node_modules/tas-sync/package.json")], { encoding: "utf8" }).trim();
  console.log(`installed tas-sync ${version} from ${tarball}: all good`);
} finally {
  if (keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
