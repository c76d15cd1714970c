/** sync_runs rows: start, heartbeat, end; and sync_errors / rejected_records. */
import type { OpenRun, RunEnd, RunStart, SyncErrorRecord } from "../../port-runs.js";
import { type OpenRunRow, openRunOf } from "../../rows.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";

/** In its own small transaction, so a running sync is visible to readers. */
export function startRun(sqlite: Sqlite, run: RunStart): number {
  const info = prepared(
    sqlite,
    `INSERT INTO sync_runs (company_id, trigger, started_at, status, owner_host, owner_pid, heartbeat_at)
     VALUES (?, ?, ?, 'running', ?, ?, ?)`,
  ).run(run.companyId, run.trigger, run.startedAt, run.owner.host, run.owner.pid, run.startedAt);
  return Number(info.lastInsertRowid);
}

export function heartbeat(sqlite: Sqlite, runId: number, at: string): void {
  prepared(sqlite, "UPDATE sync_runs SET heartbeat_at = ? WHERE id = ? AND status = 'running'").run(
    at,
    runId,
  );
}

export function finishRun(sqlite: Sqlite, runId: number, end: RunEnd): void {
  const c = end.counts;
  prepared(
    sqlite,
    `UPDATE sync_runs SET status = ?, finished_at = ?, fetched = ?, inserted = ?, updated = ?,
       unchanged = ?, deleted = ?, rejected = ?, error = ? WHERE id = ?`,
  ).run(
    end.status,
    end.finishedAt,
    c.fetched,
    c.inserted,
    c.updated,
    c.unchanged,
    c.deleted,
    c.rejected,
    end.error,
    runId,
  );
}

export function recordSyncError(sqlite: Sqlite, runId: number, e: SyncErrorRecord): void {
  prepared(
    sqlite,
    "INSERT INTO sync_errors (run_id, entity, entity_id, code, http_status, message) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(runId, e.entity, e.entityId, e.code, e.httpStatus, e.message);
}

export function recordRejected(
  sqlite: Sqlite,
  runId: number,
  entity: "plan" | "scheduled_report",
  entityId: number | null,
  reason: string,
  rawJson: string | null,
): void {
  prepared(
    sqlite,
    "INSERT INTO rejected_records (run_id, entity, entity_id, reason, raw_json) VALUES (?, ?, ?, ?, ?)",
  ).run(runId, entity, entityId, reason, rawJson);
}

export function openRuns(sqlite: Sqlite): OpenRun[] {
  const rows = prepared(
    sqlite,
    `SELECT id, company_id AS companyId, started_at AS startedAt, heartbeat_at AS heartbeatAt,
       owner_host AS ownerHost, owner_pid AS ownerPid FROM sync_runs WHERE status = 'running' ORDER BY id`,
  ).all() as OpenRunRow[];
  return rows.map(openRunOf);
}

export function abandonRun(sqlite: Sqlite, runId: number, finishedAt: string, reason: string): boolean {
  return (
    prepared(
      sqlite,
      "UPDATE sync_runs SET status = 'failed', finished_at = ?, error = ? WHERE id = ? AND status = 'running'",
    ).run(finishedAt, reason, runId).changes > 0
  );
}
