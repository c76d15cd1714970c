/** Settling outbox rows (only unsettled ones: a late or duplicate job never changes a settled row). */
import { scenarios } from "../../../schema/sqlite/index.js";
import type { AttemptKnowledge, ScenarioIdSource, ScenarioRow, Settle } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { perConnection, prepared } from "../prepared.js";
import { inserter } from "../statements.js";

/** Records the answer; applies to an unsettled row, or upgrades `exists` (the answer carries the id). */
export function markCreated(sqlite: Sqlite, key: string, scenario: ScenarioRow, now: string): boolean {
  const insertScenario = perConnection(sqlite, "insertScenario", () =>
    inserter(sqlite, scenarios, { upsertKeys: ["requestKey", "rawJson", "recordedAt"] }),
  );
  const update = prepared(
    sqlite,
    `UPDATE scenario_requests SET status = 'created', scenario_id = ?, scenario_id_source = 'answer', in_flight = 0,
       last_error = NULL, error_code = NULL, updated_at = ? WHERE key = ? AND status IN ('pending', 'queued', 'exists')`,
  );
  const write = () => {
    insertScenario(scenario);
    return update.run(scenario.id, now, key).changes > 0;
  };
  // Inside a transaction already (the worker's group commit) it needs no savepoint of its own.
  return sqlite.inTransaction ? write() : sqlite.transaction(write)();
}

export function markExists(sqlite: Sqlite, key: string, message: string, now: string): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE scenario_requests SET status = 'exists', in_flight = 0, last_error = ?, error_code = NULL, updated_at = ?
       WHERE key = ? AND status IN ('pending', 'queued')`,
    ).run(message, now, key).changes > 0
  );
}

const FAIL_SQL = `UPDATE scenario_requests SET status = 'failed',
    uncertain = CASE ? WHEN 'none' THEN (uncertain OR in_flight) WHEN 'unknown' THEN 1 ELSE uncertain END,
    in_flight = 0, error_code = ?, last_error = ?, updated_at = ?
  WHERE key = ? AND status IN ('pending', 'queued', 'blocked')`;

/**
 * `attempt` says what this run knows of the row's in-flight attempt: one that may have reached
 * the server stays known as `uncertain`, so that after retry-failed a name clash counts as
 * "exists" (a sure failure, like a first-attempt name clash, does not).
 */
export function markFailed(
  sqlite: Sqlite,
  key: string,
  settle: Settle,
  attempt: AttemptKnowledge,
  now: string,
): boolean {
  return prepared(sqlite, FAIL_SQL).run(attempt, settle.code, settle.message, now, key).changes > 0;
}

export function failMany(sqlite: Sqlite, rows: readonly ({ key: string } & Settle)[], now: string): number {
  const fail = prepared(sqlite, FAIL_SQL);
  const run = () => {
    let n = 0;
    for (const r of rows) n += fail.run("none", r.code, r.message, now, r.key).changes;
    return n;
  };
  return sqlite.inTransaction ? run() : sqlite.transaction(run)();
}

export function block(sqlite: Sqlite, keys: readonly string[], settle: Settle, now: string): number {
  const stmt = prepared(
    sqlite,
    `UPDATE scenario_requests SET status = 'blocked', error_code = ?, last_error = ?, updated_at = ?
     WHERE key = ? AND status IN ('pending', 'queued')`,
  );
  const run = () => {
    let n = 0;
    for (const key of keys) n += stmt.run(settle.code, settle.message, now, key).changes;
    return n;
  };
  return sqlite.inTransaction ? run() : sqlite.transaction(run)();
}

export function learnId(
  sqlite: Sqlite,
  key: string,
  scenarioId: number,
  source: ScenarioIdSource,
  now: string,
): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE scenario_requests SET scenario_id = ?, scenario_id_source = ?, updated_at = ?
       WHERE key = ? AND status = 'exists' AND scenario_id IS NULL`,
    ).run(scenarioId, source, now, key).changes > 0
  );
}

export function resetFailed(
  sqlite: Sqlite,
  filter: { code?: string | undefined; key?: string | undefined },
  now: string,
): string[] {
  const select = prepared(
    sqlite,
    "SELECT key FROM scenario_requests WHERE status = 'failed' AND (? IS NULL OR error_code = ?) AND (? IS NULL OR key = ?)",
  );
  const reset = prepared(
    sqlite,
    "UPDATE scenario_requests SET status = 'pending', error_code = NULL, last_error = NULL, updated_at = ? WHERE key = ?",
  );
  return sqlite.transaction(() => {
    const code = filter.code ?? null;
    const key = filter.key ?? null;
    const keys = (select.all(code, code, key, key) as { key: string }[]).map((r) => r.key);
    for (const k of keys) reset.run(now, k);
    return keys;
  })();
}
