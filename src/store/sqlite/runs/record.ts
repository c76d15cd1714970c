/** sync_runs rows: start, heartbeat, end; and sync_errors / rejected_records. */
import { and, asc, eq, sql } from "drizzle-orm";
import { syncErrors, syncRuns } from "../../../tables/sqlite/index.js";
import type { OpenRun, RunEnd, RunStart, SyncErrorRecord } from "../../port-runs.js";
import type { SnapshotOp } from "../../port-snapshot.js";
import { openRunOf } from "../../rows.js";
import type { Sqlite } from "../connection.js";
import { orm } from "../orm.js";
import { prepared } from "../prepared.js";

const running = eq(syncRuns.status, "running");
/** The same as a literal, not a parameter: the partial index sync_runs_running_idx then applies. */
const runningLiteral = sql`${syncRuns.status} = 'running'`;

/** In its own small transaction, so a running sync is visible to readers. */
export function startRun(sqlite: Sqlite, run: RunStart): number {
  const row = orm(sqlite)
    .insert(syncRuns)
    .values({
      companyId: run.companyId,
      trigger: run.trigger,
      startedAt: run.startedAt,
      status: "running",
      ownerHost: run.owner.host,
      ownerPid: run.owner.pid,
      heartbeatAt: run.startedAt,
    })
    .returning({ id: syncRuns.id })
    .get();
  return row.id;
}

export function heartbeat(sqlite: Sqlite, runId: number, at: string): void {
  orm(sqlite)
    .update(syncRuns)
    .set({ heartbeatAt: at })
    .where(and(eq(syncRuns.id, runId), running))
    .run();
}

/**
 * The company's sync_state keeps its newest finished run and the start of its newest success,
 * in the transaction that ends the run: runs end in any order (a reaped run may be older than
 * one that finished since), so each value only moves forward.
 */
function noteEnded(sqlite: Sqlite, runId: number): void {
  prepared(
    sqlite,
    `INSERT INTO sync_state (company_id, last_run_id, last_success_at)
     SELECT company_id, id, CASE WHEN status IN ('succeeded', 'partial') AND trigger <> 'replay' THEN started_at END
     FROM sync_runs WHERE id = ? AND status <> 'running'
     ON CONFLICT (company_id) DO UPDATE SET
       last_run_id = max(coalesce(last_run_id, excluded.last_run_id), excluded.last_run_id),
       last_success_at = max(coalesce(last_success_at, excluded.last_success_at),
         coalesce(excluded.last_success_at, last_success_at))`,
  ).run(runId);
}

/** In the caller's transaction (a snapshot's apply), or in one of its own. */
function inWrite<T>(sqlite: Sqlite, fn: () => T): T {
  return sqlite.inTransaction ? fn() : sqlite.transaction(fn).immediate();
}

export function finishRun(sqlite: Sqlite, runId: number, end: RunEnd): void {
  inWrite(sqlite, () => {
    orm(sqlite)
      .update(syncRuns)
      .set({ status: end.status, finishedAt: end.finishedAt, ...end.counts, error: end.error })
      .where(eq(syncRuns.id, runId))
      .run();
    noteEnded(sqlite, runId);
  });
}

export function recordSyncError(sqlite: Sqlite, runId: number, e: SyncErrorRecord): void {
  orm(sqlite)
    .insert(syncErrors)
    .values({ runId, ...e })
    .run();
}

/** Where a snapshot's rejections go: its run, and the company's newest sync that recorded some. */
export interface RejectionContext {
  companyId: number;
  runId: number;
  at: string;
  /** sync_state.rejections_run_id before this snapshot: the episodes it may extend. */
  previousRunId: number | null;
}

type Rejected = Pick<
  Extract<SnapshotOp, { op: "reject" }>,
  "entity" | "entityId" | "reason" | "rawJson" | "hash"
>;

/**
 * A rejected record, inside the snapshot's transaction: the same content rejected for the same
 * reason by the company's previous sync (or earlier in this one) extends that episode's row
 * (its small columns change, its text stays); anything else begins a row.
 */
export function recordRejected(sqlite: Sqlite, ctx: RejectionContext, r: Rejected): void {
  const key = { ...ctx, entity: r.entity, entityId: r.entityId, hash: r.hash, reason: r.reason };
  const extended = prepared(
    sqlite,
    `UPDATE rejected_records SET last_run_id = @runId, last_seen_at = @at,
       seen_runs = seen_runs + (last_run_id <> @runId)
     WHERE company_id = @companyId AND last_run_id IN (@previousRunId, @runId) AND entity = @entity
       AND entity_id IS @entityId AND content_hash = @hash AND reason = @reason`,
  ).run(key);
  if (extended.changes > 0) return;
  prepared(
    sqlite,
    `INSERT INTO rejected_records (company_id, entity, entity_id, content_hash, reason, first_run_id, last_run_id,
       first_seen_at, last_seen_at, seen_runs, raw_json)
     VALUES (@companyId, @entity, @entityId, @hash, @reason, @runId, @runId, @at, @at, 1, @rawJson)`,
  ).run({ ...key, rawJson: r.rawJson });
}

export function openRuns(sqlite: Sqlite): OpenRun[] {
  return orm(sqlite)
    .select({
      id: syncRuns.id,
      companyId: syncRuns.companyId,
      startedAt: syncRuns.startedAt,
      heartbeatAt: syncRuns.heartbeatAt,
      ownerHost: syncRuns.ownerHost,
      ownerPid: syncRuns.ownerPid,
    })
    .from(syncRuns)
    .where(runningLiteral)
    .orderBy(asc(syncRuns.id))
    .all()
    .map(openRunOf);
}

/** A run still marked running ends as failed (reaped); false when it had ended meanwhile. */
export function abandonRun(sqlite: Sqlite, runId: number, finishedAt: string, reason: string): boolean {
  return inWrite(sqlite, () => {
    const ended =
      orm(sqlite)
        .update(syncRuns)
        .set({ status: "failed", finishedAt, error: reason })
        .where(and(eq(syncRuns.id, runId), running))
        .run().changes > 0;
    if (ended) noteEnded(sqlite, runId);
    return ended;
  });
}
