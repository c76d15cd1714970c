/**
 * npm run bench:outbox — how the outbox's statements are run: by drizzle (the query builder
 * executes what it built) or by the driver (the same statement, rendered once by the builder,
 * or written by hand where the builder cannot say it). On SQLite and on PostgreSQL
 * (BENCH_PG_URL or PG_URL; skipped, and said so, when it does not answer), each pair measured in
 * the same run. It decides where the adapters bypass drizzle's execution: only where drizzle
 * costs more than MARGIN over the driver (or gets a value wrong; said in the line).
 * 1. A create job's statements for one row (sendable, beginAttempt, settleCreated), 20 rows to a
 *    transaction as the group commit batches them.
 * 2. Recording a seed file of RECORD_ROWS rows (record). On PostgreSQL the driver's side is the
 *    hand-written unnest() (one parameter per column), against the builder's multi-row VALUES.
 * 3. The scenario upsert of a settle.
 * Each side runs ROUNDS times, alternating; the best round of each is compared.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseTarget, maskUrl } from "../src/config/index.js";
import { openPostgresStore } from "../src/store/postgres/index.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { postgresPairs } from "./outbox-postgres.js";
import { sqlitePairs } from "./outbox-sqlite.js";
import { MARGIN, type Pair, ROUNDS, timed } from "./outbox-support.js";
import { BenchDatabases, bestInTurn, fmt, PG_URL, Report } from "./support.js";

/** Best round of each side, in turn; prints the line; counts whether the adapter's choice holds. */
async function measure(report: Report, store: string, p: Pair): Promise<void> {
  const side = (run: () => Promise<void>) => async () => {
    await p.reset();
    return timed(run);
  };
  const [drizzle, driver] = (await bestInTurn(ROUNDS, [side(p.drizzle), side(p.driver)], (ms) => ms)).map(
    (s) => s.best,
  ) as [number, number];
  const extra = drizzle / driver - 1;
  const choose = extra > MARGIN ? "driver" : "drizzle";
  const ok = choose === p.uses || p.because !== undefined;
  const us = (ms: number) => fmt((ms * 1000) / p.ops, 1).padStart(7);
  console.log(
    `  ${store.padEnd(9)} ${p.what.padEnd(44)} drizzle ${us(drizzle)} µs  driver ${us(driver)} µs  ` +
      `drizzle ${extra >= 0 ? "+" : ""}${fmt(extra * 100, 0)}% -> ${choose}; the adapter: ${p.uses}` +
      `${p.because ? ` (${p.because})` : ""}${ok ? "" : "  MISMATCH"}`,
  );
  report.tally(`${store}: ${p.what}`, ok);
}

async function main(): Promise<number> {
  const report = new Report("bench:outbox");
  console.log(
    `outbox statements run by drizzle or by the driver (best of ${ROUNDS} rounds; the driver only where drizzle costs > ${MARGIN * 100}%)`,
  );
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-outbox-"));
  const sqliteStore = openSqliteStore(join(dir, "outbox.db"));
  try {
    for (const p of sqlitePairs(sqliteStore)) await measure(report, "sqlite", p);
  } finally {
    await sqliteStore.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const dbs = new BenchDatabases();
  try {
    await dbs.connect();
  } catch (err) {
    console.log(
      `  postgres   skipped: PostgreSQL at ${maskUrl(PG_URL)} does not answer (${(err as Error).message})`,
    );
    return report.end();
  }
  try {
    const target = databaseTarget(await dbs.create());
    if (target.dialect !== "postgres") throw new Error("not a postgres URL");
    const store = await openPostgresStore(target, { poolSize: 2 });
    try {
      for (const p of postgresPairs(store)) await measure(report, "postgres", p);
    } finally {
      await store.close();
    }
  } finally {
    await dbs.dropAll();
  }
  return report.end();
}

process.exitCode = await main();
