/** sync_runs rows: start, heartbeat, end; and sync_errors / rejected_records. */
import type { OpenRun, RunEnd, RunStart, SyncErrorRecord } from "../../port-runs.js";
import { type OpenRunRow, openRunOf } from "../../rows.js";
import type { Db } from "../pool.js";
import { run } from "../sql.js";
import { textValue } from "../text.js";

/** In its own small transaction (autocommit), so a running sync is visible to readers. */
export async function startRun(db: Db, r: RunStart): Promise<number> {
  const { rows } = await run<{ id: number }>(
    db,
    `INSERT INTO sync_runs (company_id, trigger, started_at, status, owner_host, owner_pid, heartbeat_at)
     VALUES ($1, $2, $3, 'running', $4, $5, $3) RETURNING id`,
    [r.companyId, r.trigger, r.startedAt, r.owner.host, r.owner.pid],
  );
  return rows[0]?.id as number;
}

export async function heartbeat(db: Db, runId: number, at: string): Promise<void> {
  await run(db, "UPDATE sync_runs SET heartbeat_at = $1 WHERE id = $2 AND status = 'running'", [at, runId]);
}

export async function finishRun(db: Db, runId: number, end: RunEnd): Promise<void> {
  const c = end.counts;
  await run(
    db,
    `UPDATE sync_runs SET status = $1, finished_at = $2, fetched = $3, inserted = $4, updated = $5,
       unchanged = $6, deleted = $7, rejected = $8, error = $9 WHERE id = $10`,
    [
      end.status,
      end.finishedAt,
      c.fetched,
      c.inserted,
      c.updated,
      c.unchanged,
      c.deleted,
      c.rejected,
      textValue(end.error),
      runId,
    ],
  );
}

export async function recordSyncError(db: Db, runId: number, e: SyncErrorRecord): Promise<void> {
  await run(
    db,
    "INSERT INTO sync_errors (run_id, entity, entity_id, code, http_status, message) VALUES ($1, $2, $3, $4, $5, $6)",
    [runId, e.entity, e.entityId, textValue(e.code), e.httpStatus, textValue(e.message)],
  );
}

export async function openRuns(db: Db): Promise<OpenRun[]> {
  const { rows } = await run<OpenRunRow>(
    db,
    `SELECT id, company_id AS "companyId", started_at AS "startedAt", heartbeat_at AS "heartbeatAt",
       owner_host AS "ownerHost", owner_pid AS "ownerPid" FROM sync_runs WHERE status = 'running' ORDER BY id`,
  );
  return rows.map(openRunOf);
}

export async function abandonRun(
  db: Db,
  runId: number,
  finishedAt: string,
  reason: string,
): Promise<boolean> {
  const { rowCount } = await run(
    db,
    "UPDATE sync_runs SET status = 'failed', finished_at = $1, error = $2 WHERE id = $3 AND status = 'running'",
    [finishedAt, textValue(reason), runId],
  );
  return rowCount > 0;
}
