/** What a create job reads of its row, and the write-ahead marks around each attempt. */
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { scenarioRequests } from "../../../schema/sqlite/index.js";
import type { AttemptKnowledge, OutboxRow, SendableRow, Settle } from "../../port-outbox.js";
import { type SendableJoin, sendableOf } from "../../rows.js";
import type { Sqlite } from "../connection.js";
import { perConnection, plucked, prepared } from "../prepared.js";

/** The row as SQLite gives it: booleans as 0/1. */
type SendableRaw = Omit<SendableJoin, "inFlight" | "uncertain"> & { inFlight: number; uncertain: number };

/** The row with its parent's status, id, answer and request: one statement. */
export function sendable(sqlite: Sqlite, key: string): SendableRow | undefined {
  const r = prepared(
    sqlite,
    `SELECT r.status, r.company_id AS companyId, r.project_id AS projectId, r.payload_json AS payloadJson,
       r.parent_key AS parentKey, r.attempts, r.in_flight AS inFlight, r.uncertain,
       p.status AS pStatus, p.scenario_id AS pScenarioId, p.payload_json AS pPayloadJson, s.raw_json AS pScenarioJson
     FROM scenario_requests r
     LEFT JOIN scenario_requests p ON p.key = r.parent_key
     LEFT JOIN scenarios s ON s.id = p.scenario_id AND s.request_key = p.key
     WHERE r.key = ?`,
  ).get(key) as SendableRaw | undefined;
  if (!r) return undefined;
  return sendableOf({ ...r, inFlight: r.inFlight === 1, uncertain: r.uncertain === 1 });
}

/** The whole row, typed by drizzle (for commands and tests; not on the hot path). */
export function getRow(sqlite: Sqlite, key: string): OutboxRow | undefined {
  const db = perConnection(sqlite, "drizzle", () => drizzle(sqlite));
  return db.select().from(scenarioRequests).where(eq(scenarioRequests.key, key)).get();
}

export function beginAttempt(sqlite: Sqlite, key: string, now: string): boolean {
  return (
    plucked(
      sqlite,
      `UPDATE scenario_requests SET uncertain = (uncertain OR in_flight), in_flight = 1, attempts = attempts + 1,
         updated_at = ? WHERE key = ? RETURNING uncertain`,
    ).get(now, key) === 1
  );
}

export function endAttempt(
  sqlite: Sqlite,
  key: string,
  attempt: AttemptKnowledge,
  settle: Settle,
  now: string,
): void {
  // Only a sure answer to our own attempt clears the marker; otherwise the next attempt's
  // write-ahead folds it into `uncertain`.
  prepared(
    sqlite,
    `UPDATE scenario_requests SET in_flight = CASE WHEN ? = 'sure' THEN 0 ELSE in_flight END, error_code = ?,
       last_error = ?, updated_at = ? WHERE key = ?`,
  ).run(attempt, settle.code, settle.message, now, key);
}
