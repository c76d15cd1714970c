/** sync_runs rows: start, heartbeat, end; and sync_errors / rejected_records. */
import { and, asc, eq, sql } from "drizzle-orm";
import { syncErrors, syncRuns } from "../../../tables/postgres/index.js";
import type { OpenRun, RunEnd, RunStart, SyncErrorRecord } from "../../port-runs.js";
import type { SnapshotOp } from "../../port-snapshot.js";
import { openRunOf } from "../../rows.js";
import { orm, unwrapped } from "../orm.js";
import type { Db } from "../pool.js";
import { run } from "../sql.js";
import { textValue } from "../text.js";

const running = eq(syncRuns.status, "running");
/** The same as a literal, not a parameter: the partial index sync_runs_running_idx then applies. */
const runningLiteral = sql`${syncRuns.status} = 'running'`;

/** In its own small transaction (autocommit), so a running sync is visible to readers. */
export async function startRun(db: Db, r: RunStart): Promise<number> {
  const [row] = await unwrapped(
    orm(db)
      .insert(syncRuns)
      .values({
        companyId: r.companyId,
        trigger: r.trigger,
        startedAt: r.startedAt,
        status: "running",
        ownerHost: r.owner.host,
        ownerPid: r.owner.pid,
        heartbeatAt: r.startedAt,
      })
      .returning({ id: syncRuns.id }),
  );
  return row?.id as number;
}

export async function heartbeat(db: Db, runId: number, at: string): Promise<void> {
  await unwrapped(
    orm(db)
      .update(syncRuns)
      .set({ heartbeatAt: at })
      .where(and(eq(syncRuns.id, runId), running)),
  );
}

/**
 * The company's sync_state keeps its newest finished run and the start of its newest success,
 * in the statement that ends the run: runs end in any order (a reaped run may be older than
 * one that finished since), so each value only moves forward. `ended` is the UPDATE that ends
 * the run, returning the run's row.
 */
const noteEnded = (
  ended: string,
) => `WITH r AS (${ended} RETURNING company_id, id, status, trigger, started_at)
  INSERT INTO sync_state (company_id, last_run_id, last_success_at)
  SELECT company_id, id, CASE WHEN status IN ('succeeded', 'partial') AND trigger <> 'replay' THEN started_at END
  FROM r WHERE status <> 'running'
  ON CONFLICT (company_id) DO UPDATE SET
    last_run_id = greatest(sync_state.last_run_id, excluded.last_run_id),
    last_success_at = greatest(sync_state.last_success_at, excluded.last_success_at)
  RETURNING 1`;

export async function finishRun(db: Db, runId: number, end: RunEnd): Promise<void> {
  const c = end.counts;
  await run(
    db,
    noteEnded(`UPDATE sync_runs SET status = $2, finished_at = $3, fetched = $4, inserted = $5, updated = $6,
      unchanged = $7, deleted = $8, rejected = $9, error = $10 WHERE id = $1`),
    [
      runId,
      end.status,
      end.finishedAt,
      c.fetched,
      c.inserted,
      c.updated,
      c.unchanged,
      c.deleted,
      c.rejected,
      textValue(end.error),
    ],
  );
}

export async function recordSyncError(db: Db, runId: number, e: SyncErrorRecord): Promise<void> {
  await unwrapped(
    orm(db)
      .insert(syncErrors)
      .values({ runId, ...e, code: textValue(e.code), message: textValue(e.message) }),
  );
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
 * Rejected records, inside the snapshot's transaction, in one statement: the same content
 * rejected for the same reason by the company's previous sync (or earlier in this one) extends
 * that episode's row (its text, TOASTed, is not copied); anything else begins a row.
 */
export async function recordRejected(db: Db, ctx: RejectionContext, rs: readonly Rejected[]): Promise<void> {
  if (!rs.length) return;
  await run(
    db,
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
         AS t(entity, entity_id, content_hash, reason, raw_json, n)),
     extended AS (
       UPDATE rejected_records r SET last_run_id = $7, last_seen_at = $8,
         seen_runs = r.seen_runs + CASE WHEN r.last_run_id <> $7 THEN 1 ELSE 0 END
       FROM input i
       WHERE r.company_id = $6 AND r.last_run_id IN ($7, coalesce($9::bigint, $7)) AND r.entity = i.entity
         AND r.entity_id IS NOT DISTINCT FROM i.entity_id AND r.content_hash = i.content_hash AND r.reason = i.reason
       RETURNING r.entity, r.entity_id, r.content_hash, r.reason)
     INSERT INTO rejected_records (company_id, entity, entity_id, content_hash, reason, first_run_id, last_run_id,
       first_seen_at, last_seen_at, seen_runs, raw_json)
     SELECT $6, d.entity, d.entity_id, d.content_hash, d.reason, $7, $7, $8, $8, 1, d.raw_json
     FROM (SELECT DISTINCT ON (i.entity, i.entity_id, i.content_hash, i.reason) i.* FROM input i
       WHERE NOT EXISTS (SELECT 1 FROM extended e WHERE e.entity = i.entity
         AND e.entity_id IS NOT DISTINCT FROM i.entity_id AND e.content_hash = i.content_hash AND e.reason = i.reason)
       ORDER BY i.entity, i.entity_id, i.content_hash, i.reason, i.n) d
     ORDER BY d.n`,
    [
      rs.map((r) => r.entity),
      rs.map((r) => r.entityId),
      rs.map((r) => r.hash),
      rs.map((r) => textValue(r.reason)),
      rs.map((r) => textValue(r.rawJson)),
      ctx.companyId,
      ctx.runId,
      ctx.at,
      ctx.previousRunId,
    ],
  );
}

export async function openRuns(db: Db): Promise<OpenRun[]> {
  const rows = await unwrapped(
    orm(db)
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
      .orderBy(asc(syncRuns.id)),
  );
  return rows.map(openRunOf);
}

/** A run still marked running ends as failed (reaped); false when it had ended meanwhile. */
export async function abandonRun(
  db: Db,
  runId: number,
  finishedAt: string,
  reason: string,
): Promise<boolean> {
  const { rowCount } = await run(
    db,
    noteEnded(
      `UPDATE sync_runs SET status = 'failed', finished_at = $2, error = $3 WHERE id = $1 AND status = 'running'`,
    ),
    [runId, finishedAt, textValue(reason)],
  );
  return rowCount > 0;
}
