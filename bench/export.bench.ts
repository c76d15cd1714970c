/**
 * npm run bench:export — `tas-sync export` against a plain read of the same rows. A mirror of
 * BENCH_PLANS plans (default 100,000: the simulator, one company, synced by the built CLI) is
 * exported as Parquet and as DuckDB, every table and view, and read with `SELECT *` of every
 * table and view through the same read-only cursor (the baseline: what any export must at least
 * do). The sides run in turn, BENCH_ROUNDS times (at least 3); the best of each is compared.
 * Targets: each export at most 4x the read. Also printed: the sizes written and the process's
 * peak RSS. `--store postgres` (or
 * BENCH_STORE=postgres) measures PostgreSQL instead of SQLite.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { exportStore } from "../src/analytics/export.js";
import { exportRelations, selectSql } from "../src/analytics/export-plan.js";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/port.js";
import { BenchDatabases, bestInTurn, fmt, MB, peakRssMb, Report, spawnSimulator } from "./support.js";

const PLANS = Number(process.env.BENCH_PLANS ?? 100_000);
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 3));
const BIN = fileURLToPath(new URL("../cli/bin.js", import.meta.url));

function storeOption(argv: readonly string[]): "sqlite" | "postgres" {
  const i = argv.findIndex((a) => a === "--store" || a.startsWith("--store="));
  const arg = i < 0 ? undefined : argv[i]?.includes("=") ? argv[i]?.slice(8) : argv[i + 1];
  const value = arg ?? process.env.BENCH_STORE ?? "sqlite";
  if (value !== "sqlite" && value !== "postgres")
    throw new Error(`${arg === undefined ? "BENCH_STORE" : "--store"} is "${value}": say sqlite or postgres`);
  return value;
}

const relations = exportRelations();

/** Every row of every table and view, read and dropped. */
async function readAll(store: Store): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  let rows = 0;
  for (const r of relations) {
    const cursor = await store.sql.query(selectSql(r).replace(/^SELECT .* FROM/, "SELECT * FROM"));
    for await (const _ of cursor.rows) rows++;
  }
  return { ms: performance.now() - t0, rows };
}

function sizeOf(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((n, f) => n + statSync(join(path, f)).size, 0);
}

async function main(): Promise<number> {
  const kind = storeOption(process.argv.slice(2));
  const report = new Report("bench:export");
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-export-"));
  const databases = new BenchDatabases();
  try {
    const database = kind === "sqlite" ? join(dir, "mirror.db") : await databases.create();
    const sim = await spawnSimulator(["--companies", "1", "--plans", String(PLANS), "--reports", "0"]);
    try {
      const company = sim.companies[0];
      if (!company) throw new Error("simulator reported no company");
      const config = join(dir, "config.json");
      writeFileSync(
        config,
        JSON.stringify({
          baseUrl: sim.baseUrl,
          auth: { token: company.staticToken },
          database,
          companies: [{ id: company.id }],
        }),
      );
      execFileSync(process.execPath, [BIN, "sync", "--config", config], {
        stdio: ["ignore", "ignore", "pipe"],
      });
    } finally {
      await sim.stop();
    }
    const store = await openStore(database, { readonly: true });
    try {
      let round = 0;
      const exportSide = (format: "parquet" | "duckdb") => async () => {
        const out = join(dir, `out-${format}-${round++}${format === "duckdb" ? ".duckdb" : ""}`);
        const t0 = performance.now();
        const results = await exportStore({ store, relations, format, out });
        const ms = performance.now() - t0;
        const bytes = sizeOf(out);
        rmSync(out, { recursive: true, force: true });
        return { ms, rows: results.reduce((n, r) => n + r.rows, 0), bytes };
      };
      const [read, parquet, duck] = await bestInTurn(
        ROUNDS,
        [async () => ({ ...(await readAll(store)), bytes: 0 }), exportSide("parquet"), exportSide("duckdb")],
        (r) => r.ms,
      );
      if (!read || !parquet || !duck) throw new Error("a side did not run");
      const runs = (s: { all: { ms: number }[] }) => `(runs: ${s.all.map((r) => fmt(r.ms)).join(", ")} ms)`;
      report.figure("store", `${kind}, ${fmt(PLANS)} plans, ${relations.length} tables and views`);
      report.figure(
        "SELECT * of every table and view",
        `${fmt(read.best.ms)} ms, ${fmt(read.best.rows)} rows ${runs(read)}`,
      );
      report.figure(
        "export --format parquet",
        `${fmt(parquet.best.ms)} ms, ${fmt(parquet.best.bytes / MB, 1)} MB ${runs(parquet)}`,
      );
      report.figure(
        "export --format duckdb",
        `${fmt(duck.best.ms)} ms, ${fmt(duck.best.bytes / MB, 1)} MB ${runs(duck)}`,
      );
      report.check(
        "every row exported",
        parquet.best.rows === read.best.rows && duck.best.rows === read.best.rows,
        `${fmt(parquet.best.rows)} / ${fmt(duck.best.rows)} of ${fmt(read.best.rows)}`,
      );
      const x = (n: number) => `${fmt(n, 2)}x`;
      report.target("parquet export / SELECT * read", parquet.best.ms / read.best.ms, "at most", 4, x);
      report.target("duckdb export / SELECT * read", duck.best.ms / read.best.ms, "at most", 4, x);
      report.figure("peak RSS of the process", `${fmt(peakRssMb())} MB`);
    } finally {
      await store.close();
    }
  } finally {
    await databases.dropAll();
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

process.exitCode = await main();
