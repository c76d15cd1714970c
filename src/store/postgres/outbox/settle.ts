/** Settling outbox rows (only unsettled ones: a late or duplicate job never changes a settled row). */
import { scenarios } from "../../../schema/postgres/index.js";
import type { AttemptKnowledge, ScenarioIdSource, ScenarioRow, Settle } from "../../port-outbox.js";
import type { Db, Pool } from "../pool.js";
import { batchInserter, pluck, run } from "../sql.js";
import { transaction } from "../tx.js";

const upsertScenario = batchInserter(scenarios, { upsertKeys: ["requestKey", "rawJson", "recordedAt"] });

/** Records the answer; applies to an unsettled row, or upgrades `exists` (the answer carries the id). */
export async function markCreated(db: Db, key: string, scenario: ScenarioRow, now: string): Promise<boolean> {
  await upsertScenario(db, [scenario]);
  const { rowCount } = await run(
    db,
    `UPDATE scenario_requests SET status = 'created', scenario_id = $1, scenario_id_source = 'answer',
       in_flight = false, last_error = NULL, error_code = NULL, updated_at = $2
     WHERE key = $3 AND status IN ('pending', 'queued', 'exists')`,
    [scenario.id, now, key],
  );
  return rowCount > 0;
}

export async function markExists(db: Db, key: string, message: string, now: string): Promise<boolean> {
  const { rowCount } = await run(
    db,
    `UPDATE scenario_requests SET status = 'exists', in_flight = false, last_error = $1, error_code = NULL,
       updated_at = $2 WHERE key = $3 AND status IN ('pending', 'queued')`,
    [message, now, key],
  );
  return rowCount > 0;
}

/** Fails the rows of `keys` (each with its code and message) that are unsettled. */
const FAIL_SQL = `UPDATE scenario_requests r SET status = 'failed',
    uncertain = CASE $1::text WHEN 'none' THEN (r.uncertain OR r.in_flight) WHEN 'unknown' THEN true ELSE r.uncertain END,
    in_flight = false, error_code = v.code, last_error = v.message, updated_at = $2
  FROM unnest($3::text[], $4::text[], $5::text[]) AS v(key, code, message)
  WHERE r.key = v.key AND r.status IN ('pending', 'queued', 'blocked')`;

/**
 * `attempt` says what this run knows of the row's in-flight attempt: one that may have reached
 * the server stays known as `uncertain`, so that after retry-failed a name clash counts as
 * "exists" (a sure failure, like a first-attempt name clash, does not).
 */
export async function markFailed(
  db: Db,
  key: string,
  settle: Settle,
  attempt: AttemptKnowledge,
  now: string,
): Promise<boolean> {
  const { rowCount } = await run(db, FAIL_SQL, [attempt, now, [key], [settle.code], [settle.message]]);
  return rowCount > 0;
}

export async function failMany(
  db: Db,
  rows: readonly ({ key: string } & Settle)[],
  now: string,
): Promise<number> {
  if (!rows.length) return 0;
  const { rowCount } = await run(db, FAIL_SQL, [
    "none",
    now,
    rows.map((r) => r.key),
    rows.map((r) => r.code),
    rows.map((r) => r.message),
  ]);
  return rowCount;
}

export async function block(db: Db, keys: readonly string[], settle: Settle, now: string): Promise<number> {
  if (!keys.length) return 0;
  const { rowCount } = await run(
    db,
    `UPDATE scenario_requests SET status = 'blocked', error_code = $1, last_error = $2, updated_at = $3
     WHERE key = ANY($4::text[]) AND status IN ('pending', 'queued')`,
    [settle.code, settle.message, now, keys],
  );
  return rowCount;
}

export async function learnId(
  db: Db,
  key: string,
  scenarioId: number,
  source: ScenarioIdSource,
  now: string,
): Promise<boolean> {
  const { rowCount } = await run(
    db,
    `UPDATE scenario_requests SET scenario_id = $1, scenario_id_source = $2, updated_at = $3
     WHERE key = $4 AND status = 'exists' AND scenario_id IS NULL`,
    [scenarioId, source, now, key],
  );
  return rowCount > 0;
}

export function resetFailed(
  pool: Pool,
  filter: { code?: string | undefined; key?: string | undefined },
  now: string,
): Promise<string[]> {
  return transaction(pool, (client) =>
    pluck<string>(
      client,
      `UPDATE scenario_requests SET status = 'pending', error_code = NULL, last_error = NULL, updated_at = $1
       WHERE status = 'failed' AND ($2::text IS NULL OR error_code = $2) AND ($3::text IS NULL OR key = $3)
       RETURNING key`,
      [now, filter.code ?? null, filter.key ?? null],
    ),
  );
}
