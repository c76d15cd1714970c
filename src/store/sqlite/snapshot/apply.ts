/**
 * One company's snapshot in one IMMEDIATE transaction, synchronous from BEGIN to COMMIT: the
 * write lock is held only for local work, nothing else in the process interleaves a write, and
 * readers see the whole snapshot or none of it.
 */
import type { RunEnd } from "../../port-runs.js";
import type { ApplyResult, SnapshotMeta, SnapshotOp, SnapshotPlan } from "../../port-snapshot.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";
import { finishRun, recordRejected, recordSyncError } from "../runs/record.js";
import { loadIndex } from "./index-load.js";
import { PlanWriter } from "./plans.js";
import { ReportWriter } from "./reports.js";

export function applySnapshot(sqlite: Sqlite, meta: SnapshotMeta, plan: SnapshotPlan): ApplyResult {
  return sqlite
    .transaction((): ApplyResult => {
      const newer = prepared(
        sqlite,
        "SELECT applied_started_at AS startedAt, applied_run_id AS runId FROM sync_state WHERE company_id = ?",
      ).get(meta.companyId) as { startedAt: string | null; runId: number | null } | undefined;
      if (newer?.startedAt && newer.startedAt >= meta.startedAt)
        return { applied: false, newerStartedAt: newer.startedAt, newerRunId: newer.runId };
      const ops = plan(loadIndex(sqlite, meta.companyId, meta.reportIds));
      const write = writer(sqlite, meta);
      let step = ops.next();
      while (!step.done) {
        write(step.value);
        step = ops.next();
      }
      const end: RunEnd = { ...step.value, finishedAt: meta.finishedAt() };
      finishRun(sqlite, meta.runId, end);
      prepared(
        sqlite,
        `INSERT INTO sync_state (company_id, applied_started_at, applied_run_id) VALUES (?, ?, ?)
         ON CONFLICT(company_id) DO UPDATE SET applied_started_at = excluded.applied_started_at,
           applied_run_id = excluded.applied_run_id`,
      ).run(meta.companyId, meta.startedAt, meta.runId);
      return { applied: true, end };
    })
    .immediate();
}

/** The function that writes one operation at the snapshot's time. */
function writer(sqlite: Sqlite, meta: SnapshotMeta): (op: SnapshotOp) => void {
  const plans = new PlanWriter(sqlite);
  const reports = new ReportWriter(sqlite);
  const at = meta.startedAt;
  const { runId, companyId } = meta;
  return (o) => {
    switch (o.op) {
      case "plan.insert":
        return plans.insert(o.plan, o.rawJson, o.hash, at, runId);
      case "plan.update":
        return plans.update(o.plan, o.rawJson, o.hash, at, runId);
      case "plan.revive":
        return plans.revive(o.id, o.rawJson, o.hash, at, runId);
      case "plan.touch":
        return plans.touch(o.id, at);
      case "plan.touchAllLive":
        return plans.touchAllLive(companyId, at);
      case "plan.delete":
        plans.markDeleted(o.id, at);
        return;
      case "report.write":
        return reports.write(o.report, o.rawJson, o.hash, at, runId);
      case "report.revive":
        return reports.revive(o.id, o.rawJson, o.hash, at, runId);
      case "report.touch":
        return reports.touch(o.id, at);
      case "report.delete":
        reports.markDeleted(o.id, at);
        return;
      case "reject":
        return recordRejected(sqlite, runId, o.entity, o.entityId, o.reason, o.rawJson);
      case "error":
        return recordSyncError(sqlite, runId, o);
    }
  };
}
