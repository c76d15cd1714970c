/** sync_runs, rejected_records and sync_errors. */
import type { Sqlite } from "./db.js";
import { prepared } from "./prepared.js";

export type RunStatus = "running" | "succeeded" | "partial" | "failed";

export interface RunCounts {
  fetched: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  rejected: number;
}

export function emptyCounts(): RunCounts {
  return { fetched: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, rejected: 0 };
}

/** Start a run in its own small transaction, so a running sync is visible to readers. */
export function startRun(sqlite: Sqlite, companyId: number, trigger: string, startedAt: string): number {
  const info = sqlite
    .prepare("INSERT INTO sync_runs (company_id, trigger, started_at, status) VALUES (?, ?, ?, 'running')")
    .run(companyId, trigger, startedAt);
  return Number(info.lastInsertRowid);
}

export function finishRun(
  sqlite: Sqlite,
  runId: number,
  status: RunStatus,
  counts: RunCounts,
  finishedAt: string,
  error: string | null,
): void {
  sqlite
    .prepare(
      `UPDATE sync_runs SET status = ?, finished_at = ?, fetched = ?, inserted = ?, updated = ?,
         unchanged = ?, deleted = ?, rejected = ?, error = ? WHERE id = ?`,
    )
    .run(
      status,
      finishedAt,
      counts.fetched,
      counts.inserted,
      counts.updated,
      counts.unchanged,
      counts.deleted,
      counts.rejected,
      error,
      runId,
    );
}

export function recordRejected(
  sqlite: Sqlite,
  runId: number,
  entity: "plan" | "scheduled_report",
  entityId: number | null,
  reason: string,
  rawJson: string | null,
): void {
  // Prepared once per connection: a bad list can reject every one of 100,000 records.
  prepared(
    sqlite,
    "INSERT INTO rejected_records (run_id, entity, entity_id, reason, raw_json) VALUES (?, ?, ?, ?, ?)",
  ).run(runId, entity, entityId, reason, rawJson);
}

export function recordSyncError(
  sqlite: Sqlite,
  runId: number,
  entity: "plans" | "scheduled_report",
  entityId: number | null,
  code: string,
  httpStatus: number | null,
  message: string,
): void {
  prepared(
    sqlite,
    "INSERT INTO sync_errors (run_id, entity, entity_id, code, http_status, message) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(runId, entity, entityId, code, httpStatus, message);
}

/**
 * Runs left 'running' by a process that died: mark them failed so they do not look alive.
 * Only runs older than `maxAgeMs` (a 100k-plan sync takes seconds): a younger one may belong
 * to another live process.
 */
export function failAbandonedRuns(sqlite: Sqlite, now: Date, maxAgeMs = 60 * 60_000): number {
  const olderThan = new Date(now.getTime() - maxAgeMs).toISOString();
  return sqlite
    .prepare(
      "UPDATE sync_runs SET status = 'failed', finished_at = ?, error = 'abandoned: the process ended before the run finished' WHERE status = 'running' AND started_at < ?",
    )
    .run(now.toISOString(), olderThan).changes;
}
