/**
 * bench:sync's PostgreSQL phase (`--store postgres` or BENCH_STORE=postgres): the same full
 * sync and no-change re-sync as the SQLite phase, into a database made for the run at
 * BENCH_PG_URL or PG_URL (dropped after), in a child process (its peak RSS is its own). The
 * baseline: the same rows loaded by COPY, one per table, in one transaction, into the same
 * tables emptied (./pg-copy-baseline.ts). Prints the SQLite phase's figures beside.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { databaseTarget, maskUrl } from "../src/config/index.js";
import { PLAN_CHILD_TABLES } from "../src/schema/table-names.js";
import { openPostgresStore } from "../src/store/postgres/index.js";
import { copyInputs, runCopyBaseline } from "./pg-copy-baseline.js";
import type { BaselineInput } from "./raw-baseline.js";
import { fmt, verdict } from "./support.js";
import type { ChildInput, ChildResult } from "./sync-postgres-child.js";

export const PG_URL =
  process.env.BENCH_PG_URL ?? process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** What the SQLite phase measured, printed beside PostgreSQL's. */
export interface StoreFigures {
  fullRate: number;
  resyncRate: number;
  baseRate: number;
  rssMb: number;
}

const CHILD = fileURLToPath(new URL("./sync-postgres-child.js", import.meta.url));
const PLAN_TABLES = ["plans", ...PLAN_CHILD_TABLES, "mobile_apps", "plan_versions"];

/** Runs the phase and prints it; true when every target passes. */
export async function postgresPhase(
  sim: { baseUrl: string; companyId: number; token: string },
  rows: readonly BaselineInput[],
  sqlite: StoreFigures,
): Promise<boolean> {
  const name = `tas_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (err) {
    await admin.end().catch(() => {});
    throw new Error(`PostgreSQL at ${maskUrl(PG_URL)} cannot create a database: ${(err as Error).message}`);
  }
  try {
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    console.log("");
    console.log(`PostgreSQL: database ${name} at ${maskUrl(url.toString())} (dropped after)`);
    const synced = await runChild({ ...sim, databaseUrl: url.toString() });

    const target = databaseTarget(url.toString());
    if (target.dialect !== "postgres") throw new Error("not a postgres URL");
    const store = await openPostgresStore(target);
    let baseMs: number;
    try {
      await store.pool.query(`TRUNCATE ${PLAN_TABLES.join(", ")}`);
      const inputs = copyInputs(rows, new Date().toISOString());
      baseMs = await runCopyBaseline(store.pool, inputs);
    } finally {
      await store.close();
    }
    return report(synced, rows.length, baseMs, sqlite);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

/** Prints the figures and the verdicts; true when every target passes. */
function report(r: ChildResult, baseCount: number, baseMs: number, sqlite: StoreFigures): boolean {
  const fullRate = r.full.count / (r.full.ms / 1000);
  const resyncRate = r.again.count / (r.again.ms / 1000);
  const baseRate = baseCount / (baseMs / 1000);
  const ratioFull = fullRate / baseRate;
  const ratioResync = resyncRate / fullRate;
  const beside = (figure: string) => `   (SQLite: ${figure})`;
  console.log(
    `full sync           ${fmt(r.full.count)} plans in ${fmt(r.full.ms)} ms = ${fmt(fullRate)} plans/s${beside(`${fmt(sqlite.fullRate)} plans/s`)}`,
  );
  console.log(
    `no-change re-sync   ${fmt(r.again.count)} plans in ${fmt(r.again.ms)} ms = ${fmt(resyncRate)} plans/s${beside(`${fmt(sqlite.resyncRate)} plans/s`)}`,
  );
  console.log(
    `baseline (COPY per table, same rows, one transaction) ${fmt(baseCount)} plans in ${fmt(baseMs)} ms = ${fmt(baseRate)} plans/s${beside(`raw insert loop ${fmt(sqlite.baseRate)} plans/s`)}`,
  );
  console.log(
    `peak RSS during the syncs (child process): ${fmt(r.rssMb)} MB${beside(`${fmt(sqlite.rssMb)} MB`)}`,
  );
  console.log("");
  const sqliteFull = sqlite.fullRate / sqlite.baseRate;
  const sqliteResync = sqlite.resyncRate / sqlite.fullRate;
  console.log(
    `postgres full sync / COPY = ${fmt(ratioFull * 100, 1)}%  (target >= 40%)  ${verdict(ratioFull >= 0.4)}${beside(`${fmt(sqliteFull * 100, 1)}% of its baseline`)}`,
  );
  console.log(
    `postgres re-sync / full   = ${fmt(ratioResync, 2)}x  (target >= 3x)    ${verdict(ratioResync >= 3)}${beside(`${fmt(sqliteResync, 2)}x`)}`,
  );
  console.log(
    `postgres peak RSS         = ${fmt(r.rssMb)} MB (target < 600 MB) ${verdict(r.rssMb < 600)}${beside(`${fmt(sqlite.rssMb)} MB`)}`,
  );
  return ratioFull >= 0.4 && ratioResync >= 3 && r.rssMb < 600;
}

/** The syncs, in a child process; resolves with its one message. */
function runChild(input: ChildInput & { companyId: number }): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(input)], { execArgv: ["--expose-gc"] });
    let result: ChildResult | undefined;
    child.once("message", (m) => {
      result = m as ChildResult;
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (result) resolve(result);
      else
        reject(
          new Error(`the postgres sync process ended (${signal ?? `exit code ${code}`}) without a result`),
        );
    });
  });
}
