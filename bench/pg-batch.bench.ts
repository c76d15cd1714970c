/**
 * npm run bench:pg-batch — how the PostgreSQL store should write a snapshot's rows: 20,000 plan
 * rows (26 columns, ~1.5 KB of raw JSON each) upserted into `plans` in one transaction, by
 *   1. one INSERT per row (prepared; the baseline: SQLite's way, ported as is),
 *   2. INSERT ... SELECT * FROM unnest($1::bigint[], ...) ON CONFLICT, 500 rows a statement
 *      (how the store upserts rows that exist: src/store/postgres/sql.ts batchInserter; rows
 *      that cannot conflict it writes by plain COPY, src/store/postgres/copy.ts),
 *   3. COPY into a temp table, then INSERT ... SELECT ... ON CONFLICT, 500 rows a COPY,
 *   4. the same two with 5,000 rows a statement.
 * Each is timed three times on a fresh table (best of 3), into a database made for the run at
 * BENCH_PG_URL or PG_URL and dropped after. Prints ms and the speed-up over the baseline; the target: the
 * store's way of upserting (unnest, as batchInserter writes it) at least twice as fast as one
 * INSERT per row. Ends with one verdict line; exits 1 when the target is missed.
 */
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { getTableColumns } from "drizzle-orm";
import { from as copyFrom } from "pg-copy-streams";
import { databaseTarget } from "../src/config/index.js";
import { openPostgresStore, type PostgresStore } from "../src/store/postgres/index.js";
import type { PoolClient } from "../src/store/postgres/pool.js";
import { batchInserter } from "../src/store/postgres/sql.js";
import type { PlanRow } from "../src/tables/index.js";
import { plans } from "../src/tables/postgres/index.js";
import { BenchDatabases, fmt, Report } from "./support.js";

const ROWS = Number(process.env.BENCH_PG_ROWS ?? 20_000);
const ROUNDS = 3;

const entries = Object.entries(getTableColumns(plans));
const keys = entries.map(([k]) => k);
const cols = entries.map(([, c]) => `"${c.name}"`);
const updates = entries
  .filter(([k]) => k !== "id" && k !== "firstSeenAt")
  .map(([, c]) => `"${c.name}" = excluded."${c.name}"`)
  .join(", ");

function makeRows(n: number): PlanRow[] {
  const filler = "x".repeat(1200);
  return Array.from({ length: n }, (_, i) => ({
    id: 1_000_000 + i,
    companyId: 5251,
    projectId: 3_000_000_000 + (i % 50),
    planName: `plan "${i}"\twith\\odd\ncharacters ☕`,
    groupPlan: i % 2 === 0,
    enabled: true,
    planParallelTestLimit: 4,
    platform: i % 3 ? "desktop" : "mobile",
    periodType: "WEEKLY",
    periodStartAt: "2025-01-01T08:30:00.250Z",
    periodDaysOfWeek: "2,3",
    rawJson: JSON.stringify({ id: 1_000_000 + i, filler }),
    contentHash: randomBytes(16).toString("hex"),
    firstSeenAt: "2025-03-01T10:00:00.000Z",
    seenAt: "2025-03-01T10:00:00.000Z",
    deletedAt: null,
  }));
}

type Method = (c: PoolClient, rows: PlanRow[]) => Promise<void>;

const oneByOne: Method = async (c, rows) => {
  const text = `INSERT INTO plans (${cols.join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})
    ON CONFLICT (id) DO UPDATE SET ${updates}`;
  for (const r of rows)
    await c.query({
      name: "bench_one",
      text,
      values: keys.map((k) => (r as Record<string, unknown>)[k] ?? null),
    });
};

const upsert = batchInserter(plans, {
  upsertKeys: keys.filter((k) => k !== "id" && k !== "firstSeenAt"),
});
const unnest =
  (batch: number): Method =>
  async (c, rows) => {
    for (let i = 0; i < rows.length; i += batch) await upsert(c, rows.slice(i, i + batch));
  };

/** COPY's text format: \N for NULL, t/f, and backslash, tab, newline and CR escaped. */
function copyLine(r: PlanRow): string {
  return `${keys
    .map((k) => {
      const v = (r as Record<string, unknown>)[k];
      if (v === null || v === undefined) return "\\N";
      if (typeof v === "boolean") return v ? "t" : "f";
      return String(v).replace(
        /[\\\t\n\r]/g,
        (ch) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[ch] as string,
      );
    })
    .join("\t")}\n`;
}

const copy =
  (batch: number): Method =>
  async (c, rows) => {
    await c.query("CREATE TEMP TABLE bench_plans (LIKE plans) ON COMMIT DROP");
    for (let i = 0; i < rows.length; i += batch) {
      const part = rows.slice(i, i + batch);
      await pipeline(
        Readable.from([part.map(copyLine).join("")]),
        c.query(copyFrom(`COPY bench_plans (${cols.join(", ")}) FROM STDIN`)),
      );
      await c.query(
        `INSERT INTO plans (${cols.join(", ")}) SELECT ${cols.join(", ")} FROM bench_plans ON CONFLICT (id) DO UPDATE SET ${updates}`,
      );
      await c.query("TRUNCATE bench_plans");
    }
  };

async function time(store: PostgresStore, method: Method, rows: PlanRow[]): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await store.pool.query("TRUNCATE plans");
    const c = await store.pool.connect();
    try {
      const t0 = performance.now();
      await c.query("BEGIN");
      await method(c, rows);
      await c.query("COMMIT");
      times.push(performance.now() - t0);
    } finally {
      c.release();
    }
  }
  const count = (await store.pool.query("SELECT count(*) AS n FROM plans")).rows[0].n;
  if (count !== rows.length) throw new Error(`expected ${rows.length} rows, found ${count}`);
  return Math.min(...times);
}

async function main(): Promise<number> {
  const report = new Report("bench:pg-batch");
  const dbs = new BenchDatabases();
  const target = databaseTarget(await dbs.create());
  if (target.dialect !== "postgres") throw new Error("PG_URL is not a postgres URL");
  const store = await openPostgresStore(target);
  try {
    const rows = makeRows(ROWS);
    const methods: [string, Method][] = [
      ["one INSERT per row (baseline)", oneByOne],
      ["INSERT ... unnest, 500 rows", unnest(500)],
      ["INSERT ... unnest, 5000 rows", unnest(5000)],
      ["COPY + INSERT ... SELECT, 500 rows", copy(500)],
      ["COPY + INSERT ... SELECT, 5000 rows", copy(5000)],
    ];
    console.log(`${fmt(ROWS)} plan rows upserted in one transaction, best of ${ROUNDS}:`);
    const ms = new Map<string, number>();
    for (const [label, method] of methods) {
      ms.set(label, await time(store, method, rows));
      report.figure(`  ${label}`, `${fmt(ms.get(label) ?? 0)} ms`);
    }
    const baseline = ms.get("one INSERT per row (baseline)") ?? 0;
    for (const [label] of methods.slice(1))
      report.figure(`  ${label} / baseline`, `${fmt(baseline / (ms.get(label) ?? 1), 1)}x faster`);
    report.target(
      "the store's upsert (unnest, 5000 rows a batch) speed-up",
      baseline / (ms.get("INSERT ... unnest, 5000 rows") ?? 1),
      "at least",
      2,
      (v) => `${fmt(v, 1)}x`,
    );
  } finally {
    await store.close();
    await dbs.dropAll();
  }
  return report.end();
}

process.exitCode = await main();
