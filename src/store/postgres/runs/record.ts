/** sync_runs rows: start, heartbeat, end; and sync_errors / rejected_records. */
import { and, asc, eq, sql } from "drizzle-orm";
import { syncErrors, syncRuns } from "../../../schema/postgres/index.js";
import type { OpenRun, RunEnd, RunStart, SyncErrorRecord } from "../../port-runs.js";
import { openRunOf } from "../../rows.js";
import { orm, unwrapped } from "../orm.js";
import type { Db } from "../pool.js";
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

export async function finishRun(db: Db, runId: number, end: RunEnd): Promise<void> {
  await unwrapped(
    orm(db)
      .update(syncRuns)
      .set({ status: end.status, finishedAt: end.finishedAt, ...end.counts, error: textValue(end.error) })
      .where(eq(syncRuns.id, runId)),
  );
}

export async function recordSyncError(db: Db, runId: number, e: SyncErrorRecord): Promise<void> {
  await unwrapped(
    orm(db)
      .insert(syncErrors)
      .values({ runId, ...e, code: textValue(e.code), message: textValue(e.message) }),
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

export async function abandonRun(
  db: Db,
  runId: number,
  finishedAt: string,
  reason: string,
): Promise<boolean> {
  const rows = await unwrapped(
    orm(db)
      .update(syncRuns)
      .set({ status: "failed", finishedAt, error: textValue(reason) })
      .where(and(eq(syncRuns.id, runId), running))
      .returning({ id: syncRuns.id }),
  );
  return rows.length > 0;
}
