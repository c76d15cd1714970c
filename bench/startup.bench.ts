/**
 * npm run bench:startup — how fast the CLI answers, as whole processes.
 * Each case (and the baseline `node -e 0`) is spawned BENCH_STARTUP_RUNS times (default 15),
 * the cases interleaved round by round so that all of them see the same machine. For each run:
 * the time from spawn to the first stdout byte, and to exit. Printed: the medians, and the
 * median time to first output over the median exit time of `node -e 0` (target <= 2x). Ends
 * with one verdict line; exits 1 when a target is missed.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fmt, median, Report } from "./support.js";

/** The shipped bin: tsc's output bundled by scripts/bundle.mjs. */
const BIN = fileURLToPath(new URL("../cli/bin.js", import.meta.url));
/** tsc's output as it is, one file per module: what the bundle saves. */
const UNBUNDLED = fileURLToPath(new URL("../src/bin.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);
const TARGET = 2;

interface Case {
  name: string;
  args: string[];
  /** The baseline: what a process costs that loads nothing. */
  baseline?: boolean;
  /** A reference figure, not a target (what a dependency alone costs). */
  reference?: boolean;
}

interface Sample {
  firstOutputMs: number | null;
  exitMs: number;
  code: number | null;
}

/** Spawns one process; times its first stdout byte and its exit. */
function runOnce(args: string[]): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    let firstOutputMs: number | null = null;
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.once("data", () => {
      firstOutputMs = ms();
    });
    child.stdout.resume();
    child.on("error", reject);
    child.on("exit", (code) => resolve({ firstOutputMs, exitMs: ms(), code }));
  });
}

async function main(): Promise<number> {
  const report = new Report("bench:startup");
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-startup-"));
  try {
    const config = join(dir, "tas-sync.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: "http://127.0.0.1:9/R",
        database: join(dir, "tas.db"),
        auth: { token: "bench-token" },
        companies: [{ id: 5251 }],
      }),
    );
    const seed = join(dir, "small.ndjson");
    writeFileSync(
      seed,
      [1, 2, 3]
        .map((i) =>
          JSON.stringify({
            project_id: 52511,
            key: `k${i}`,
            scenario_name: `Login ${i}`,
            source_file: "A.java",
          }),
        )
        .join("\n"),
    );
    const cases: Case[] = [
      { name: "node -e 0", args: ["-e", "0"], baseline: true },
      { name: "tas-sync --help", args: [BIN, "--help"] },
      { name: "tas-sync push --help", args: [BIN, "push", "--help"] },
      { name: "tas-sync sync --help", args: [BIN, "sync", "--help"] },
      { name: "tas-sync push --dry-run (3 rows)", args: [BIN, "push", "--dry-run", "-c", config, seed] },
      {
        name: "(reference) dry-run unbundled",
        args: [UNBUNDLED, "push", "--dry-run", "-c", config, seed],
        reference: true,
      },
      // The floor of any command that reads the config or a seed file: both are zod schemas.
      {
        name: "(reference) node + import zod",
        args: ["--input-type=module", "-e", "import 'zod'; process.stdout.write('.')"],
        reference: true,
      },
    ];
    const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
    // One warm-up round: the first spawn pays for a cold file cache.
    for (const c of cases) await runOnce(c.args);
    for (let round = 0; round < RUNS; round++)
      for (const c of cases) samples.get(c.name)?.push(await runOnce(c.args));

    const base = median((samples.get("node -e 0") ?? []).map((s) => s.exitMs));
    console.log(`startup: ${RUNS} runs of each case (interleaved), medians (node ${process.version})`);
    for (const c of cases) {
      const runs = samples.get(c.name) ?? [];
      const codes = new Set(runs.map((r) => r.code));
      const exit = median(runs.map((r) => r.exitMs));
      if (c.baseline) {
        report.figure(c.name, `exit ${fmt(exit, 1)} ms (the baseline)`);
        continue;
      }
      const firsts = runs.map((r) => r.firstOutputMs).filter((v): v is number => v !== null);
      if (firsts.length < runs.length || codes.size !== 1 || !codes.has(0)) {
        report.check(c.name, false, `no output or a non-zero exit (codes ${[...codes].join(", ")})`);
        continue;
      }
      const first = median(firsts);
      report.figure(c.name, `first output ${fmt(first, 1)} ms, exit ${fmt(exit, 1)} ms`);
      const ratio = first / base;
      if (c.reference) report.figure(`  ${c.name} / node -e 0`, `${fmt(ratio, 2)}x (no target)`);
      else report.target(`  first output / node -e 0`, ratio, "at most", TARGET, (v) => `${fmt(v, 2)}x`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
