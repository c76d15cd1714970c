/** sync_runs rows: start, heartbeat, end; and sync_errors / rejected_records. */
import { and, asc, eq, sql } from "drizzle-orm";
import { syncErrors, syncRuns } from "../../../schema/sqlite/index.js";
import type { OpenRun, RunEnd, RunStart, SyncErrorRecord } from "../../port-runs.js";
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

export function finishRun(sqlite: Sqlite, runId: number, end: RunEnd): void {
  orm(sqlite)
    .update(syncRuns)
    .set({ status: end.status, finishedAt: end.finishedAt, ...end.counts, error: end.error })
    .where(eq(syncRuns.id, runId))
    .run();
}

export function recordSyncError(sqlite: Sqlite, runId: number, e: SyncErrorRecord): void {
  orm(sqlite)
    .insert(syncErrors)
    .values({ runId, ...e })
    .run();
}

/** Per rejected record of an apply, inside its transaction: a prepared statement (the snapshot's hot path). */
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

export function abandonRun(sqlite: Sqlite, runId: number, finishedAt: string, reason: string): boolean {
  return (
    orm(sqlite)
      .update(syncRuns)
      .set({ status: "failed", finishedAt, error: reason })
      .where(and(eq(syncRuns.id, runId), running))
      .run().changes > 0
  );
}
