import { getTableColumns } from "drizzle-orm";
import type pg from "pg";
import type { PostgresStore } from "../src/store/postgres/index.js";
import { orm as pgOrm } from "../src/store/postgres/orm.js";
import * as pgAttempt from "../src/store/postgres/outbox/attempt.js";
import * as pgReady from "../src/store/postgres/outbox/ready.js";
import { recordRows as pgRecord } from "../src/store/postgres/outbox/record.js";
import * as pgSettle from "../src/store/postgres/outbox/settle.js";
import { batchInserter, pluck, run } from "../src/store/postgres/sql.js";
import { transaction } from "../src/store/postgres/tx.js";
import { scenarioRequests as pgRequests, scenarios as pgScenarios } from "../src/tables/postgres/index.js";
import {
  JOB_ROWS,
  NOW,
  type Pair,
  PER_TX,
  placeholders,
  RECORD_ROWS,
  rows,
  scenario,
  upsertSet,
} from "./outbox-support.js";
import { fmt } from "./support.js";

// ---------- PostgreSQL ----------

export function postgresPairs(store: PostgresStore): Pair[] {
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
  // The create job's statements as they were hand-written before the builder (0e3c392); `begin`
  // since has the write-ahead's claim (the row still sendable, its attempts as read).
  const hand = {
    sendable: `SELECT r.status, r.company_id AS "companyId", r.project_id AS "projectId", r.payload_json AS "payloadJson",
       r.parent_key AS "parentKey", r.attempts, r.in_flight AS "inFlight", r.uncertain, r.error_code AS "errorCode",
       p.status AS "pStatus", p.scenario_id AS "pScenarioId", p.payload_json AS "pPayloadJson", s.raw_json AS "pScenarioJson"
     FROM scenario_requests r LEFT JOIN scenario_requests p ON p.key = r.parent_key
     LEFT JOIN scenarios s ON s.id = p.scenario_id AND s.request_key = p.key WHERE r.key = $1`,
    begin: `UPDATE scenario_requests SET uncertain = (uncertain OR in_flight), in_flight = true, attempts = attempts + 1,
       updated_at = $1 WHERE key = $2 AND status IN ('pending', 'queued') AND attempts = $3 RETURNING uncertain`,
    created: `UPDATE scenario_requests SET status = 'created', scenario_id = $1, scenario_id_source = 'answer',
       in_flight = false, last_error = NULL, error_code = NULL, updated_at = $2
     WHERE key = $3 AND status IN ('pending', 'queued', 'held', 'exists', 'failed') RETURNING key`,
    takeReady: `UPDATE scenario_requests AS r SET status = 'queued', error_code = NULL, last_error = NULL, updated_at = $1
     WHERE r.batch_id = $2 AND r.status IN ('pending', 'blocked') AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.scenario_id IS NOT NULL
          AND p.status IN ('created', 'exists'))) RETURNING r.key`,
    ready: `UPDATE scenario_requests AS r SET status = 'queued', error_code = NULL, last_error = NULL, updated_at = $1
     WHERE r.parent_key = $2 AND r.status IN ('pending', 'blocked') AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.scenario_id IS NOT NULL
          AND p.status IN ('created', 'exists'))) RETURNING r.key`,
  };
  const handUpsert = batchInserter(pgScenarios, { upsertKeys: ["requestKey", "rawJson", "recordedAt"] });
  // The upsert as the adapter's settle prepares it, on its own.
  const byClient = new WeakMap<pg.PoolClient, { execute(v: Record<string, unknown>): Promise<unknown> }>();
  const drizzleUpsert = (c: pg.PoolClient) => {
    const q =
      byClient.get(c) ??
      pgOrm(c)
        .insert(pgScenarios)
        .values(placeholders(pgScenarios) as typeof pgScenarios.$inferInsert)
        .onConflictDoUpdate({ target: pgScenarios.id, set: upsertSet })
        .prepare("tas_bench_upsert");
    byClient.set(c, q);
    return q;
  };
  const seed = rows(RECORD_ROWS, "rec");
  return [
    {
      what: "create job: sendable + begin + settleCreated",
      uses: "drizzle",
      ops: JOB_ROWS,
      reset: resetJobs,
      drizzle: inBatches(async (c, k, i) => {
        const seen = await pgAttempt.sendable(c, k);
        if (!seen || (await pgAttempt.beginAttempt(c, k, seen, NOW)) === undefined)
          throw new Error(`${k}: not claimed`);
        await pgSettle.settleCreated(c, k, scenario(k, 1_000_000 + i), NOW);
      }),
      driver: inBatches(async (c, k, i) => {
        const seen = await run(c, hand.sendable, [k]);
        if ((await run(c, hand.begin, [NOW, k, seen.rows[0]?.attempts])).rowCount !== 1)
          throw new Error(`${k}: not claimed`);
        await handUpsert(c, [scenario(k, 1_000_000 + i)]);
        await run(c, hand.created, [1_000_000 + i, NOW, k]);
        await run(c, hand.ready, [NOW, k]);
      }),
    },
    {
      what: `take ready: ${fmt(RECORD_ROWS)} rows queued at once`,
      uses: "drizzle",
      ops: RECORD_ROWS,
      reset: async () => {
        await pool.query("TRUNCATE scenario_requests");
        await pgRecord(pool, seed, "b", "/seed", NOW);
      },
      drizzle: async () => {
        await pgReady.takeReady(pool, NOW, { batchId: "b" });
      },
      driver: async () => {
        await pluck(pool, hand.takeReady, [NOW, "b"]);
      },
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
      uses: "drizzle",
      ops: JOB_ROWS,
      reset: async () => {
        await pool.query("TRUNCATE scenarios");
      },
      drizzle: inBatches((c, k, i) => drizzleUpsert(c).execute({ ...pgNone, ...scenario(k, 1_000_000 + i) })),
      driver: inBatches((c, k, i) => handUpsert(c, [scenario(k, 1_000_000 + i)])),
    },
  ];
}

const pgNone = Object.fromEntries(Object.keys(getTableColumns(pgScenarios)).map((k) => [k, null]));
