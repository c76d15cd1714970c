/**
 * The push outbox (scenario_requests) and the created scenarios. One function per write.
 * Status flow: pending -> queued -> created | exists | failed. A row is "settled" once
 * created, exists or failed; settled rows are never sent again (retry-failed excepted).
 */

import { type ScenarioRequestRow, type ScenarioRow, scenarios } from "../schema/index.js";
import type { Sqlite } from "./db.js";
import { perConnection, plucked, prepared } from "./prepared.js";
import { inserter } from "./statements.js";

export type RequestStatus = ScenarioRequestRow["status"];

export * from "./outbox-record.js";
export * from "./outbox-report.js";

const SELECT_COLUMNS = `key, company_id AS companyId, project_id AS projectId, scenario_name AS scenarioName,
  payload_json AS payloadJson, parent_key AS parentKey, status, attempts, last_error AS lastError,
  error_code AS errorCode, scenario_id AS scenarioId, in_flight AS inFlight, uncertain,
  batch_id AS batchId, source_file AS sourceFile, source_line AS sourceLine,
  created_at AS createdAt, updated_at AS updatedAt`;

export function getRequest(sqlite: Sqlite, key: string): ScenarioRequestRow | undefined {
  return readRequest<ScenarioRequestRow>(sqlite, SELECT_COLUMNS, key);
}

/** What a create job needs of its row. */
export type SendableRow = Pick<
  ScenarioRequestRow,
  "status" | "companyId" | "projectId" | "payloadJson" | "parentKey" | "attempts" | "inFlight" | "uncertain"
>;

/** The row as a create job reads it: only the columns it needs (every job reads one). */
export function getSendable(sqlite: Sqlite, key: string): SendableRow | undefined {
  return readRequest<SendableRow>(
    sqlite,
    `status, company_id AS companyId, project_id AS projectId, payload_json AS payloadJson,
       parent_key AS parentKey, attempts, in_flight AS inFlight, uncertain`,
    key,
  );
}

/** One row's `columns` (which include in_flight and uncertain), with those two as booleans. */
function readRequest<T>(sqlite: Sqlite, columns: string, key: string): T | undefined {
  const row = prepared(sqlite, `SELECT ${columns} FROM scenario_requests WHERE key = ?`).get(key) as
    | Record<"inFlight" | "uncertain", unknown>
    | undefined;
  if (!row) return undefined;
  // In place: every push job reads its row, and copying it showed in profiles.
  row.inFlight = row.inFlight === 1;
  row.uncertain = row.uncertain === 1;
  return row as T;
}

/**
 * Rows ready to queue: pending with no parent or a created parent (optionally one batch).
 * They are marked queued in the same transaction; the caller then adds their jobs.
 * Pending rows whose parent is settled without an id (failed, exists) can never be ready:
 * they are failed here, or `push --wait` would wait for them forever.
 */
export function takeReady(sqlite: Sqlite, now: string, batchId?: string): string[] {
  const where = batchId === undefined ? "" : "AND r.batch_id = ?";
  const orphans = sqlite.prepare(
    `SELECT r.key, r.parent_key AS parentKey, p.status FROM scenario_requests r
     JOIN scenario_requests p ON p.key = r.parent_key
     WHERE r.status = 'pending' AND p.status IN ('failed', 'exists') ${where}`,
  );
  // One statement marks them and returns their keys (no per-row round trip: 100k rows take ms).
  const take = plucked(
    sqlite,
    `UPDATE scenario_requests AS r SET status = 'queued', updated_at = ?
     WHERE r.status = 'pending' ${where} AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.status = 'created'))
     RETURNING key`,
  );
  return sqlite.transaction(() => {
    const stuck = (batchId === undefined ? orphans.all() : orphans.all(batchId)) as {
      key: string;
      parentKey: string;
      status: RequestStatus;
    }[];
    for (const o of stuck) {
      if (o.status === "failed")
        markFailed(sqlite, o.key, "PARENT_FAILED", `parent failed: ${o.parentKey}`, now);
      else
        markFailed(
          sqlite,
          o.key,
          "PARENT_ID_UNKNOWN",
          `parent ${o.parentKey} exists but its id is unknown (its create answer was lost)`,
          now,
        );
    }
    return (batchId === undefined ? take.all(now) : take.all(now, batchId)) as string[];
  })();
}

/** Keys of rows already queued (to re-add their jobs after a crash; job ids dedupe). */
export function queuedKeys(sqlite: Sqlite): string[] {
  return plucked(sqlite, "SELECT key FROM scenario_requests WHERE status = 'queued'").all() as string[];
}

/**
 * Write-ahead of one attempt: count it and mark it in flight *before* sending, so that a
 * crash after the server committed leaves a trace. Returns whether an earlier attempt's
 * outcome is unknown (a name clash then means the scenario exists).
 */
export function beginAttempt(sqlite: Sqlite, key: string, now: string): boolean {
  const begin = plucked(
    sqlite,
    `UPDATE scenario_requests SET uncertain = (uncertain OR in_flight), in_flight = 1, attempts = attempts + 1,
       updated_at = ? WHERE key = ? RETURNING uncertain`,
  );
  return begin.get(now, key) === 1;
}

/** The attempt got an answer that says nothing was created (or will be retried after one). */
/**
 * What this run knows of the row's in-flight attempt: `none` (it sent nothing; an in-flight
 * marker is an earlier, crashed attempt's), `sure` (it sent one and the answer says nothing
 * was created), `unknown` (it sent one and the outcome is unknown).
 */
export type AttemptKnowledge = "none" | "sure" | "unknown";

/** The attempt ended without settling the row (a retry follows, or the queue paused). */
export function endAttempt(
  sqlite: Sqlite,
  key: string,
  attempt: AttemptKnowledge,
  code: string,
  message: string,
  now: string,
): void {
  // Only a sure answer to our own attempt clears the marker; otherwise the next attempt's
  // write-ahead folds it into `uncertain`.
  prepared(
    sqlite,
    "UPDATE scenario_requests SET in_flight = CASE WHEN ? = 'sure' THEN 0 ELSE in_flight END, error_code = ?, last_error = ?, updated_at = ? WHERE key = ?",
  ).run(attempt, code, message, now, key);
}

/**
 * Record the service's answer, and return the row's pending children, now queued: their parent
 * has its id. Applies to an unsettled row, or upgrades `exists` (a duplicate run of the same
 * job that saw the name clash first): the answer carries the id.
 */
export function markCreated(sqlite: Sqlite, key: string, scenario: ScenarioRow, now: string): string[] {
  const write = perConnection(sqlite, "markCreated", () => {
    const insertScenario = inserter(sqlite, scenarios, {
      upsertKeys: ["requestKey", "rawJson", "recordedAt"],
    });
    const update = sqlite.prepare(
      `UPDATE scenario_requests SET status = 'created', scenario_id = ?, in_flight = 0, last_error = NULL,
         error_code = NULL, updated_at = ? WHERE key = ? AND status IN ('pending', 'queued', 'exists')`,
    );
    const children = sqlite
      .prepare(
        `UPDATE scenario_requests SET status = 'queued', updated_at = ? WHERE parent_key = ? AND status = 'pending'
         RETURNING key`,
      )
      .pluck();
    const body = (k: string, s: ScenarioRow, at: string) => {
      insertScenario(s);
      update.run(s.id, at, k);
      return children.all(at, k) as string[];
    };
    const alone = sqlite.transaction(body);
    // Inside a transaction already (the worker's group commit) it needs no savepoint of its own.
    return (k: string, s: ScenarioRow, at: string) =>
      sqlite.inTransaction ? body(k, s, at) : alone(k, s, at);
  });
  return write(key, scenario, now);
}

/** Returns whether the row was unsettled (and is now `exists`). */
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
  WHERE key = ? AND status IN ('pending', 'queued')`;
const UNSETTLED_CHILDREN_SQL =
  "SELECT key FROM scenario_requests WHERE parent_key = ? AND status IN ('pending', 'queued')";

/** Fail the unsettled children of `parentKey` (and, through markFailed, their descendants). */
export function failChildren(
  sqlite: Sqlite,
  parentKey: string,
  code: string,
  message: string,
  now: string,
): void {
  for (const child of plucked(sqlite, UNSETTLED_CHILDREN_SQL).all(parentKey) as string[]) {
    markFailed(sqlite, child, code, message, now);
  }
}

/**
 * Fail an unsettled row, and every unsettled descendant with reason "parent failed". Returns
 * the count. `attempt` says what this run knows of the row's in-flight attempt: one that may
 * have reached the server stays known as `uncertain`, so that after retry-failed a name clash
 * counts as "exists" (a sure failure, like a first-attempt name clash, does not).
 */
export function markFailed(
  sqlite: Sqlite,
  key: string,
  code: string,
  message: string,
  now: string,
  attempt: AttemptKnowledge = "none",
): number {
  const fail = prepared(sqlite, FAIL_SQL);
  const children = plucked(sqlite, UNSETTLED_CHILDREN_SQL);
  return sqlite.transaction(() => {
    if (fail.run(attempt, code, message, now, key).changes === 0) return 0;
    let count = 1;
    const stack = [key];
    while (stack.length) {
      const parent = stack.pop() as string;
      for (const child of children.all(parent) as string[]) {
        fail.run("none", "PARENT_FAILED", `parent failed: ${parent}`, now, child);
        count++;
        stack.push(child);
      }
    }
    return count;
  })();
}

export function getScenario(sqlite: Sqlite, id: number): { rawJson: string } | undefined {
  return prepared(sqlite, "SELECT raw_json AS rawJson FROM scenarios WHERE id = ?").get(id) as
    | { rawJson: string }
    | undefined;
}

export function resetFailed(
  sqlite: Sqlite,
  opts: { code?: string | undefined; key?: string | undefined },
  now: string,
): string[] {
  const select = sqlite
    .prepare(
      "SELECT key FROM scenario_requests WHERE status = 'failed' AND (? IS NULL OR error_code = ?) AND (? IS NULL OR key = ?)",
    )
    .pluck();
  const reset = sqlite.prepare(
    "UPDATE scenario_requests SET status = 'pending', error_code = NULL, last_error = NULL, updated_at = ? WHERE key = ?",
  );
  return sqlite.transaction(() => {
    const keys = select.all(
      opts.code ?? null,
      opts.code ?? null,
      opts.key ?? null,
      opts.key ?? null,
    ) as string[];
    for (const k of keys) reset.run(now, k);
    return keys;
  })();
}

/** Queued rows of a batch (re-added after a crash: job ids make that a no-op if present). */
export function queuedKeysOf(sqlite: Sqlite, batchId: string): string[] {
  return plucked(sqlite, "SELECT key FROM scenario_requests WHERE batch_id = ? AND status = 'queued'").all(
    batchId,
  ) as string[];
}
