/** What a create job reads of its row, and the write-ahead marks around each attempt. */
import { scenarioRequests } from "../../../schema/postgres/index.js";
import type { AttemptKnowledge, OutboxRow, SendableRow, Settle } from "../../port-outbox.js";
import { type SendableJoin, sendableOf } from "../../rows.js";
import type { Db } from "../pool.js";
import { run, selectList } from "../sql.js";

/** The row with its parent's status, id, answer and request: one statement. */
export async function sendable(db: Db, key: string): Promise<SendableRow | undefined> {
  const { rows } = await run<SendableJoin>(
    db,
    `SELECT r.status, r.company_id AS "companyId", r.project_id AS "projectId", r.payload_json AS "payloadJson",
       r.parent_key AS "parentKey", r.attempts, r.in_flight AS "inFlight", r.uncertain,
       p.status AS "pStatus", p.scenario_id AS "pScenarioId", p.payload_json AS "pPayloadJson",
       s.raw_json AS "pScenarioJson"
     FROM scenario_requests r
     LEFT JOIN scenario_requests p ON p.key = r.parent_key
     LEFT JOIN scenarios s ON s.id = p.scenario_id AND s.request_key = p.key
     WHERE r.key = $1`,
    [key],
  );
  const r = rows[0];
  if (!r) return undefined;
  return sendableOf(r);
}

const GET_ROW = `SELECT ${selectList(scenarioRequests)} FROM scenario_requests WHERE key = $1`;

/** The whole row, in drizzle's $inferSelect shape (for commands and tests). */
export async function getRow(db: Db, key: string): Promise<OutboxRow | undefined> {
  return (await run<OutboxRow>(db, GET_ROW, [key])).rows[0];
}

export async function beginAttempt(db: Db, key: string, now: string): Promise<boolean> {
  const { rows } = await run<{ uncertain: boolean }>(
    db,
    `UPDATE scenario_requests SET uncertain = (uncertain OR in_flight), in_flight = true, attempts = attempts + 1,
       updated_at = $1 WHERE key = $2 RETURNING uncertain`,
    [now, key],
  );
  return rows[0]?.uncertain === true;
}

export async function endAttempt(
  db: Db,
  key: string,
  attempt: AttemptKnowledge,
  settle: Settle,
  now: string,
): Promise<void> {
  // Only a sure answer to our own attempt clears the marker; otherwise the next attempt's
  // write-ahead folds it into `uncertain`.
  await run(
    db,
    `UPDATE scenario_requests SET in_flight = CASE WHEN $1::text = 'sure' THEN false ELSE in_flight END,
       error_code = $2, last_error = $3, updated_at = $4 WHERE key = $5`,
    [attempt, settle.code, settle.message, now, key],
  );
}
