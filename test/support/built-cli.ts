/**
 * The built CLI as shipped (`node dist/cli/bin.js`: tsc's output in dist/src, bundled by
 * scripts/bundle.mjs), rebuilt when src/ or jobs/ is newer than it. Test
 * files run in parallel workers: a lock directory makes one build at a time, and the others
 * wait for it and then find the build fresh.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BIN = join(ROOT, "dist/cli/bin.js");
const LOCK = join(tmpdir(), `tas-sync-build-${Buffer.from(ROOT).toString("hex").slice(-32)}.lock`);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function isFresh(): boolean {
  try {
    const built = statSync(BIN).mtimeMs;
    return built >= newestMtime(join(ROOT, "src")) && built >= newestMtime(join(ROOT, "jobs"));
  } catch {
    return false;
  }
}

/** Builds dist/ unless it is up to date with the sources. */
export async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!isFresh()) {
    try {
      mkdirSync(LOCK);
    } catch {
      if (Date.now() > deadline) throw new Error(`gave up waiting for the build lock ${LOCK}`);
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      if (!isFresh()) {
        let typeErrors: unknown;
        try {
          execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe" });
        } catch (err) {
          // Type errors elsewhere (bench/ under edit) still emit; only a missing CLI is fatal.
          typeErrors = err;
        }
        execFileSync(process.execPath, ["scripts/bundle.mjs"], { cwd: ROOT, stdio: "pipe" });
        if (!isFresh()) throw typeErrors ?? new Error("the build did not produce dist/cli/bin.js");
      }
    } finally {
      rmdirSync(LOCK);
    }
  }
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the built CLI; `done` resolves when it exits. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  // The test run's own settings must not override the configs the tests write.
  const { TAS_CONFIG: _config, REDIS_URL: _redis, TAS_DATABASE: _database, ...base } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...base, TAS_LOG_FORMAT: "json", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const done = new Promise<Run>((ok, fail) => {
    child.on("error", fail);
    child.on("close", (code, signal) => ok({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return startCli(args, env).done;
}
