import { and, eq, getTableColumns } from "drizzle-orm";
import { compileInsert, overwrite } from "../src/store/sqlite/binder.js";
import type { SqliteStore } from "../src/store/sqlite/index.js";
import * as sqAttempt from "../src/store/sqlite/outbox/attempt.js";
import * as sqReady from "../src/store/sqlite/outbox/ready.js";
import { recordRows as sqRecord } from "../src/store/sqlite/outbox/record.js";
import * as sqSettle from "../src/store/sqlite/outbox/settle.js";
import { orm as sqOrm, p as sqParent } from "../src/store/sqlite/outbox/tables.js";
import { plucked, prepared } from "../src/store/sqlite/prepared.js";
import { movable, ready, writes } from "../src/tables/outbox-states.js";
import {
  scenarioRequests as sqliteRequests,
  scenarios as sqliteScenarios,
} from "../src/tables/sqlite/index.js";
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

// ---------- SQLite ----------

export function sqlitePairs(store: SqliteStore): Pair[] {
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
  // The create job's statements as they were hand-written before the builder (0e3c392); `begin`
  // since has the write-ahead's claim (the row still sendable, its attempts as read).
  const hand = {
    sendable: `SELECT r.status, r.company_id AS companyId, r.project_id AS projectId, r.payload_json AS payloadJson,
       r.parent_key AS parentKey, r.attempts, r.in_flight AS inFlight, r.uncertain, r.error_code AS errorCode,
       p.status AS pStatus, p.scenario_id AS pScenarioId, p.payload_json AS pPayloadJson, s.raw_json AS pScenarioJson
     FROM scenario_requests r LEFT JOIN scenario_requests p ON p.key = r.parent_key
     LEFT JOIN scenarios s ON s.id = p.scenario_id AND s.request_key = p.key WHERE r.key = ?`,
    begin: `UPDATE scenario_requests SET uncertain = (uncertain OR in_flight), in_flight = 1, attempts = attempts + 1,
       updated_at = ? WHERE key = ? AND status IN ('pending', 'queued') AND attempts = ? RETURNING uncertain`,
    created: `UPDATE scenario_requests SET status = 'created', scenario_id = ?, scenario_id_source = 'answer', in_flight = 0,
       last_error = NULL, error_code = NULL, updated_at = ? WHERE key = ? AND status IN ('pending', 'queued', 'held', 'exists', 'failed')`,
    ready: `UPDATE scenario_requests AS r SET status = 'queued', error_code = NULL, last_error = NULL, updated_at = ?
     WHERE r.parent_key = ? AND r.status IN ('pending', 'blocked') AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.scenario_id IS NOT NULL
          AND p.status IN ('created', 'exists'))) RETURNING key`,
  };
  const upserted = ["requestKey", "rawJson", "recordedAt"];
  const insertScenario = compileInsert<typeof sqliteScenarios.$inferInsert>(
    sqlite,
    sqliteScenarios,
    [],
    `ON CONFLICT (id) DO UPDATE SET ${overwrite(
      sqliteScenarios,
      Object.keys(getTableColumns(sqliteScenarios)).filter((k) => !upserted.includes(k)),
    )}`,
  );
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
        const seen = sqAttempt.sendable(sqlite, k);
        if (!seen || sqAttempt.beginAttempt(sqlite, k, seen, NOW) === undefined)
          throw new Error(`${k}: not claimed`);
        sqSettle.settleCreated(sqlite, k, scenario(k, 1_000_000 + i), NOW);
      }),
      driver: inBatches((k, i) => {
        const seen = prepared(sqlite, hand.sendable).get(k) as { attempts: number } | undefined;
        if (plucked(sqlite, hand.begin).get(NOW, k, seen?.attempts) === undefined)
          throw new Error(`${k}: not claimed`);
        insertScenario(scenario(k, 1_000_000 + i));
        prepared(sqlite, hand.created).run(1_000_000 + i, NOW, k);
        plucked(sqlite, hand.ready).all(NOW, k);
      }),
    },
    {
      what: `take ready: ${fmt(RECORD_ROWS)} rows queued at once`,
      uses: "driver",
      ops: RECORD_ROWS,
      reset: async () => {
        sqlite.exec("DELETE FROM scenario_requests");
        sqRecord(sqlite, seed, "b", "/seed", NOW);
      },
      drizzle: async () => {
        db.update(sqliteRequests)
          .set({ ...writes("queue"), updatedAt: NOW })
          .where(
            and(
              eq(sqliteRequests.batchId, "b"),
              movable(sqliteRequests, "queue"),
              ready(sqliteRequests, sqParent),
            ),
          )
          .returning({ key: sqliteRequests.key })
          .all();
      },
      driver: async () => {
        sqReady.takeReady(sqlite, NOW, { batchId: "b" });
      },
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
