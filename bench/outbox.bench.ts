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
import { and, eq, getTableColumns, sql, type Table } from "drizzle-orm";
import { alias as pgAlias } from "drizzle-orm/pg-core";
import pg from "pg";
import { databaseTarget, maskUrl } from "../src/config/index.js";
import { movable, PARENT, ready } from "../src/schema/outbox-states.js";
import { scenarioRequests as pgRequests, scenarios as pgScenarios } from "../src/schema/postgres/index.js";
import {
  scenarioRequests as sqliteRequests,
  scenarios as sqliteScenarios,
} from "../src/schema/sqlite/index.js";
import type { NewRequest } from "../src/store/port-outbox.js";
import { openPostgresStore, type PostgresStore } from "../src/store/postgres/index.js";
import { orm as pgOrm, statement } from "../src/store/postgres/orm.js";
import * as pgAttempt from "../src/store/postgres/outbox/attempt.js";
import { recordRows as pgRecord } from "../src/store/postgres/outbox/record.js";
import * as pgSettle from "../src/store/postgres/outbox/settle.js";
import { transaction } from "../src/store/postgres/tx.js";
import { openSqliteStore, type SqliteStore } from "../src/store/sqlite/index.js";
import * as sqAttempt from "../src/store/sqlite/outbox/attempt.js";
import { recordRows as sqRecord } from "../src/store/sqlite/outbox/record.js";
import * as sqSettle from "../src/store/sqlite/outbox/settle.js";
import { orm as sqOrm } from "../src/store/sqlite/outbox/tables.js";
import { plucked, prepared } from "../src/store/sqlite/prepared.js";
import { inserter } from "../src/store/sqlite/statements.js";
import { fmt } from "./support.js";

const JOB_ROWS = Number(process.env.BENCH_OUTBOX_ROWS ?? 4_000);
const RECORD_ROWS = Number(process.env.BENCH_OUTBOX_RECORD_ROWS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_TX = 20;
/** The builder is kept unless it costs more than this over hand-written SQL. */
const MARGIN = 0.1;
const PG_URL =
  process.env.BENCH_PG_URL ?? process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const NOW = "2026-01-01T00:00:00.000Z";

interface Pair {
  what: string;
  /** How the adapter runs it now. */
  uses: "drizzle" | "driver";
  /** Why the adapter runs it as it does whatever the figures (a value drizzle gets wrong). */
  because?: string;
  drizzle: () => Promise<void>;
  driver: () => Promise<void>;
  /** Fresh data before each round. */
  reset: () => Promise<void>;
  ops: number;
}

function rows(n: number, tag: string): NewRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `${tag}-${i}`,
    companyId: 5251,
    projectId: 52511,
    scenarioName: `${tag}-${i}`,
    payloadJson: JSON.stringify({ project_id: 52511, scenario_name: `${tag}-${i}`, source_file: "a.java" }),
    parentKey: null,
    line: i + 1,
  }));
}

const scenario = (key: string, id: number) => ({
  id,
  requestKey: key,
  companyId: 5251,
  projectId: 52511,
  scenarioName: key,
  rawJson: `{"id":${id},"scenario_name":"${key}"}`,
  recordedAt: NOW,
});

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

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

/** Every column of `table` as a placeholder of its own name. */
function placeholders(table: Table): Record<string, unknown> {
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((k) => [k, sql.placeholder(k)]));
}

const upsertSet = {
  requestKey: sql`excluded.request_key`,
  rawJson: sql`excluded.raw_json`,
  recordedAt: sql`excluded.recorded_at`,
};

// ---------- SQLite ----------

function sqlitePairs(store: SqliteStore): Pair[] {
  const { sqlite } = store;
  const db = sqOrm(sqlite);
  const keys = rows(JOB_ROWS, "job").map((r) => r.key);
  const resetJobs = async () => {
    sqlite.exec("DELETE FROM scenario_requests; DELETE FROM scenarios");
    await store.outbox.record(rows(JOB_ROWS, "job"), "b", "/seed", NOW);
    sqlite.exec("UPDATE scenario_requests SET status = 'queued'");
  };
  const inBatches = (one: (key: string, i: number) => void) => async () => {
    for (let i = 0; i < keys.length; i += PER_TX)
      sqlite.transaction(() => {
        for (const [j, k] of keys.slice(i, i + PER_TX).entries()) one(k, i + j);
      })();
  };
  // The create job's statements as they were hand-written before the builder (0e3c392).
  const hand = {
    sendable: `SELECT r.status, r.company_id AS companyId, r.project_id AS projectId, r.payload_json AS payloadJson,
       r.parent_key AS parentKey, r.attempts, r.in_flight AS inFlight, r.uncertain, r.error_code AS errorCode,
       p.status AS pStatus, p.scenario_id AS pScenarioId, p.payload_json AS pPayloadJson, s.raw_json AS pScenarioJson
     FROM scenario_requests r LEFT JOIN scenario_requests p ON p.key = r.parent_key
     LEFT JOIN scenarios s ON s.id = p.scenario_id AND s.request_key = p.key WHERE r.key = ?`,
    begin: `UPDATE scenario_requests SET uncertain = (uncertain OR in_flight), in_flight = 1, attempts = attempts + 1,
       updated_at = ? WHERE key = ? RETURNING uncertain`,
    created: `UPDATE scenario_requests SET status = 'created', scenario_id = ?, scenario_id_source = 'answer', in_flight = 0,
       last_error = NULL, error_code = NULL, updated_at = ? WHERE key = ? AND status IN ('pending', 'queued', 'held', 'exists', 'failed')`,
    ready: `UPDATE scenario_requests AS r SET status = 'queued', error_code = NULL, last_error = NULL, updated_at = ?
     WHERE r.parent_key = ? AND r.status IN ('pending', 'blocked') AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.scenario_id IS NOT NULL
          AND p.status IN ('created', 'exists'))) RETURNING key`,
  };
  const insertScenario = inserter(sqlite, sqliteScenarios, {
    upsertKeys: ["requestKey", "rawJson", "recordedAt"],
  });
  const seed = rows(RECORD_ROWS, "rec");
  const drizzleInsert = db
    .insert(sqliteRequests)
    .values({
      ...(placeholders(sqliteRequests) as typeof sqliteRequests.$inferInsert),
      status: "pending",
    })
    .onConflictDoNothing()
    .prepare();
  const drizzleUpsert = db
    .insert(sqliteScenarios)
    .values(placeholders(sqliteScenarios) as typeof sqliteScenarios.$inferInsert)
    .onConflictDoUpdate({ target: sqliteScenarios.id, set: upsertSet })
    .prepare();
  const none = Object.fromEntries(Object.keys(getTableColumns(sqliteScenarios)).map((k) => [k, null]));
  return [
    {
      what: "create job: sendable + begin + settleCreated",
      uses: "drizzle",
      ops: JOB_ROWS,
      reset: resetJobs,
      drizzle: inBatches((k, i) => {
        sqAttempt.sendable(sqlite, k);
        sqAttempt.beginAttempt(sqlite, k, NOW);
        sqSettle.settleCreated(sqlite, k, scenario(k, 1_000_000 + i), NOW);
      }),
      driver: inBatches((k, i) => {
        prepared(sqlite, hand.sendable).get(k);
        plucked(sqlite, hand.begin).get(NOW, k);
        insertScenario(scenario(k, 1_000_000 + i));
        prepared(sqlite, hand.created).run(1_000_000 + i, NOW, k);
        plucked(sqlite, hand.ready).all(NOW, k);
      }),
    },
    {
      what: `record ${fmt(RECORD_ROWS)} rows (the INSERT)`,
      uses: "driver",
      ops: RECORD_ROWS,
      reset: async () => {
        sqlite.exec("DELETE FROM scenario_requests");
      },
      drizzle: async () => {
        sqlite.transaction(() => {
          for (const r of seed)
            drizzleInsert.run({
              ...r,
              sourceLine: r.line,
              batchId: "b",
              sourceFile: "/seed",
              createdAt: NOW,
              updatedAt: NOW,
              attempts: 0,
              inFlight: 0,
              uncertain: 0,
              status: "pending",
              lastError: null,
              errorCode: null,
              scenarioId: null,
              scenarioIdSource: null,
            });
        })();
      },
      driver: async () => {
        sqRecord(sqlite, seed, "b", "/seed", NOW);
      },
    },
    {
      what: "scenario upsert of a settle",
      uses: "driver",
      because: "drizzle would store a null boolean as false",
      ops: JOB_ROWS,
      reset: async () => {
        sqlite.exec("DELETE FROM scenarios");
      },
      drizzle: inBatches((k, i) => drizzleUpsert.run({ ...none, ...scenario(k, 1_000_000 + i) })),
      driver: inBatches((k, i) => insertScenario(scenario(k, 1_000_000 + i))),
    },
  ];
}

// ---------- PostgreSQL ----------

function postgresPairs(store: PostgresStore): Pair[] {
  const { pool } = store;
  const keys = rows(JOB_ROWS, "job").map((r) => r.key);
  const resetJobs = async () => {
    await pool.query("TRUNCATE scenario_requests, scenarios");
    await store.outbox.record(rows(JOB_ROWS, "job"), "b", "/seed", NOW);
    await pool.query("UPDATE scenario_requests SET status = 'queued'");
  };
  const inBatches = (one: (c: pg.PoolClient, key: string, i: number) => Promise<unknown>) => async () => {
    for (let i = 0; i < keys.length; i += PER_TX)
      await transaction(pool, async (c) => {
        for (const [j, k] of keys.slice(i, i + PER_TX).entries()) await one(c, k, i + j);
      });
  };
  // drizzle's execution of the adapter's statements, prepared under a name once per connection.
  const byClient = new WeakMap<
    pg.PoolClient,
    Map<string, { execute(v: Record<string, unknown>): Promise<unknown> }>
  >();
  const viaDrizzle = (
    c: pg.PoolClient,
    name: string,
    build: (o: ReturnType<typeof pgOrm>) => {
      prepare(name: string): { execute(v: Record<string, unknown>): Promise<unknown> };
    },
  ) => {
    const m = byClient.get(c) ?? new Map();
    byClient.set(c, m);
    const q = m.get(name) ?? build(pgOrm(c)).prepare(`tas_bench_${name}`);
    m.set(name, q);
    return q;
  };
  const key = sql.placeholder("key");
  const now = sql`${sql.placeholder("now")}`;
  const t = pgRequests;
  const p = pgAlias(pgRequests, PARENT);
  const seed = rows(RECORD_ROWS, "rec");
  return [
    {
      what: "create job: sendable + begin + settleCreated",
      uses: "driver",
      ops: JOB_ROWS,
      reset: resetJobs,
      drizzle: inBatches(async (c, k, i) => {
        await viaDrizzle(c, "sendable", (o) =>
          o
            .select({
              status: t.status,
              companyId: t.companyId,
              payloadJson: t.payloadJson,
              parentKey: t.parentKey,
              attempts: t.attempts,
              inFlight: t.inFlight,
              uncertain: t.uncertain,
              errorCode: t.errorCode,
              pStatus: p.status,
              pScenarioId: p.scenarioId,
              pPayloadJson: p.payloadJson,
              pScenarioJson: pgScenarios.rawJson,
            })
            .from(t)
            .leftJoin(p, eq(p.key, t.parentKey))
            .leftJoin(pgScenarios, and(eq(pgScenarios.id, p.scenarioId), eq(pgScenarios.requestKey, p.key)))
            .where(eq(t.key, key)),
        ).execute({ key: k });
        await viaDrizzle(c, "begin", (o) =>
          o
            .update(t)
            .set({
              uncertain: sql`(${t.uncertain} or ${t.inFlight})`,
              inFlight: true,
              attempts: sql`${t.attempts} + 1`,
              updatedAt: now,
            })
            .where(eq(t.key, key))
            .returning({ uncertain: t.uncertain }),
        ).execute({ key: k, now: NOW });
        await viaDrizzle(c, "upsert", (o) =>
          o
            .insert(pgScenarios)
            .values(placeholders(pgScenarios) as typeof pgScenarios.$inferInsert)
            .onConflictDoUpdate({ target: pgScenarios.id, set: upsertSet }),
        ).execute({ ...pgNone, ...scenario(k, 1_000_000 + i) });
        await viaDrizzle(c, "created", (o) =>
          o
            .update(t)
            .set({
              status: "created",
              scenarioId: sql`${sql.placeholder("id")}`,
              scenarioIdSource: "answer",
              inFlight: false,
              lastError: null,
              errorCode: null,
              updatedAt: now,
            })
            .where(and(eq(t.key, key), movable(t, "create")))
            .returning({ key: t.key }),
        ).execute({ key: k, id: 1_000_000 + i, now: NOW });
        await viaDrizzle(c, "ready", (o) =>
          o
            .update(t)
            .set({ status: "queued", errorCode: null, lastError: null, updatedAt: now })
            .where(and(eq(t.parentKey, key), movable(t, "queue"), ready(t, p)))
            .returning({ key: t.key }),
        ).execute({ key: k, now: NOW });
      }),
      driver: inBatches(async (c, k, i) => {
        await pgAttempt.sendable(c, k);
        await pgAttempt.beginAttempt(c, k, NOW);
        await pgSettle.settleCreated(c, k, scenario(k, 1_000_000 + i), NOW);
      }),
    },
    {
      what: `record ${fmt(RECORD_ROWS)} rows`,
      uses: "driver",
      ops: RECORD_ROWS,
      reset: async () => {
        await pool.query("TRUNCATE scenario_requests");
      },
      drizzle: async () => {
        await transaction(pool, async (c) => {
          for (let i = 0; i < seed.length; i += 1000)
            await pgOrm(c)
              .insert(pgRequests)
              .values(
                seed.slice(i, i + 1000).map((r) => ({
                  key: r.key,
                  companyId: r.companyId,
                  projectId: r.projectId,
                  scenarioName: r.scenarioName,
                  payloadJson: r.payloadJson,
                  parentKey: r.parentKey,
                  status: "pending" as const,
                  batchId: "b",
                  sourceFile: "/seed",
                  sourceLine: r.line,
                  createdAt: NOW,
                  updatedAt: NOW,
                })),
              )
              .onConflictDoNothing()
              .returning({ key: pgRequests.key });
        });
      },
      driver: async () => {
        await pgRecord(pool, seed, "b", "/seed", NOW);
      },
    },
    {
      what: "scenario upsert of a settle",
      because: "one of the create job's statements, run together",
      uses: "driver",
      ops: JOB_ROWS,
      reset: async () => {
        await pool.query("TRUNCATE scenarios");
      },
      drizzle: inBatches((c, k, i) =>
        viaDrizzle(c, "upsert", (o) =>
          o
            .insert(pgScenarios)
            .values(placeholders(pgScenarios) as typeof pgScenarios.$inferInsert)
            .onConflictDoUpdate({ target: pgScenarios.id, set: upsertSet }),
        ).execute({ ...pgNone, ...scenario(k, 1_000_000 + i) }),
      ),
      driver: inBatches((c, k, i) => upsertScenario(c, { ...pgNone, ...scenario(k, 1_000_000 + i) })),
    },
  ];
}

const pgNone = Object.fromEntries(Object.keys(getTableColumns(pgScenarios)).map((k) => [k, null]));
/** The adapter's upsert, as settleCreated runs it (the driver runs the builder's statement). */
const upsertScenario = statement("bench_upsert_scenario", (o) =>
  o
    .insert(pgScenarios)
    .values(placeholders(pgScenarios) as typeof pgScenarios.$inferInsert)
    .onConflictDoUpdate({ target: pgScenarios.id, set: upsertSet }),
);

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
