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
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { databaseTarget, maskUrl } from "../src/config/index.js";
import { openPostgresStore } from "../src/store/postgres/index.js";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { postgresPairs } from "./outbox-postgres.js";
import { sqlitePairs } from "./outbox-sqlite.js";
import { MARGIN, type Pair, PG_URL, ROUNDS, timed } from "./outbox-support.js";
import { fmt } from "./support.js";

/** Best round of each side, alternating; prints the line; true when the adapter's choice holds. */
async function measure(store: string, p: Pair): Promise<boolean> {
  const best = { drizzle: Number.POSITIVE_INFINITY, driver: Number.POSITIVE_INFINITY };
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of ["drizzle", "driver"] as const) {
      await p.reset();
      best[side] = Math.min(best[side], await timed(p[side]));
    }
  }
  const extra = best.drizzle / best.driver - 1;
  const choose = extra > MARGIN ? "driver" : "drizzle";
  const ok = choose === p.uses || p.because !== undefined;
  const us = (ms: number) => fmt((ms * 1000) / p.ops, 1).padStart(7);
  console.log(
    `  ${store.padEnd(9)} ${p.what.padEnd(44)} drizzle ${us(best.drizzle)} µs  driver ${us(best.driver)} µs  ` +
      `drizzle ${extra >= 0 ? "+" : ""}${fmt(extra * 100, 0)}% -> ${choose}; the adapter: ${p.uses}` +
      `${p.because ? ` (${p.because})` : ""}${ok ? "" : "  MISMATCH"}`,
  );
  return ok;
}

async function main(): Promise<number> {
  let ok = true;
  console.log(
    `outbox statements run by drizzle or by the driver (best of ${ROUNDS} rounds; the driver only where drizzle costs > ${MARGIN * 100}%)`,
  );
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-outbox-"));
  const sqliteStore = openSqliteStore(join(dir, "outbox.db"));
  try {
    for (const p of sqlitePairs(sqliteStore)) ok = (await measure("sqlite", p)) && ok;
  } finally {
    await sqliteStore.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
  } catch (err) {
    console.log(
      `  postgres   skipped: PostgreSQL at ${maskUrl(PG_URL)} does not answer (${(err as Error).message})`,
    );
    return ok ? 0 : 1;
  }
  const name = `tas_bench_${randomBytes(6).toString("hex")}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const target = databaseTarget(url.toString());
    if (target.dialect !== "postgres") throw new Error("not a postgres URL");
    const store = await openPostgresStore(target, { poolSize: 2 });
    try {
      for (const p of postgresPairs(store)) ok = (await measure("postgres", p)) && ok;
    } finally {
      await store.close();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
  console.log(
    ok ? "overall: PASS (each adapter runs each statement as the figures call for)" : "overall: FAIL",
  );
  return ok ? 0 : 1;
}

process.exitCode = await main();
