/**
 * One company's snapshot in one IMMEDIATE transaction, synchronous from BEGIN to COMMIT: the
 * write lock is held only for local work, nothing else in the process interleaves a write, and
 * readers see the whole snapshot or none of it.
 */
import type { RunEnd } from "../../port-runs.js";
import type { ApplyResult, SnapshotMeta, SnapshotOp, SnapshotOps } from "../../port-snapshot.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";
import { finishRun, recordRejected, recordSyncError } from "../runs/record.js";
import { writeSchema } from "../schema/index.js";
import { PlanWriter } from "./plans.js";
import { ReportWriter } from "./reports.js";

interface State {
  startedAt: string | null;
  runId: number | null;
  generation: number;
  /** sync_state.plans_seen_at and rejections_run_id before this snapshot. */
  seenAt: string | null;
  rejectionsRunId: number | null;
}

export function applySnapshot(sqlite: Sqlite, meta: SnapshotMeta, ops: SnapshotOps): ApplyResult {
  const began = performance.now();
  const result = sqlite
    .transaction((): ApplyResult => {
      const state = (prepared(
        sqlite,
        `SELECT applied_started_at AS startedAt, applied_run_id AS runId, write_generation AS generation,
           plans_seen_at AS seenAt, rejections_run_id AS rejectionsRunId FROM sync_state WHERE company_id = ?`,
      ).get(meta.companyId) as State | undefined) ?? {
        startedAt: null,
        runId: null,
        generation: 0,
        seenAt: null,
        rejectionsRunId: null,
      };
      if (state.startedAt && state.startedAt >= meta.startedAt)
        return {
          applied: false,
          reason: "superseded",
          newerStartedAt: state.startedAt,
          newerRunId: state.runId,
        };
      if (state.generation !== meta.generation) return { applied: false, reason: "stale" };
      const touched = new Set<number>();
      const { write, flush } = writer(sqlite, meta, state, touched);
      let step = ops.next();
      while (!step.done) {
        write(step.value);
        step = ops.next();
      }
      flush();
      const end: RunEnd = { ...step.value.run, finishedAt: meta.finishedAt() };
      finishRun(sqlite, meta.runId, end);
      prepared(
        sqlite,
        `INSERT INTO sync_state (company_id, applied_started_at, applied_run_id, plans_listed_at, plans_seen_at,
           rejections_run_id, write_generation)
         VALUES (@company, @startedAt, @runId, @listedAt, @seenAt, @rejectionsRunId, 1)
         ON CONFLICT(company_id) DO UPDATE SET applied_started_at = excluded.applied_started_at,
           applied_run_id = excluded.applied_run_id,
           plans_listed_at = coalesce(excluded.plans_listed_at, sync_state.plans_listed_at),
           plans_seen_at = coalesce(excluded.plans_seen_at, sync_state.plans_seen_at),
           rejections_run_id = coalesce(excluded.rejections_run_id, sync_state.rejections_run_id),
           write_generation = sync_state.write_generation + 1`,
      ).run({
        company: meta.companyId,
        startedAt: meta.startedAt,
        runId: meta.runId,
        listedAt: step.value.plansListed ? meta.startedAt : null,
        seenAt: step.value.plansSeen ? meta.startedAt : null,
        rejectionsRunId: step.value.rejections ? meta.runId : null,
      });
      const bump = prepared(
        sqlite,
        "UPDATE sync_state SET write_generation = write_generation + 1 WHERE company_id = ?",
      );
      for (const other of touched) if (other !== meta.companyId) bump.run(other);
      return { applied: true, end, writeMs: 0 };
    })
    .immediate();
  return result.applied ? { ...result, writeMs: performance.now() - began } : result;
}

/** The function that writes one operation at the snapshot's time. */
function writer(
  sqlite: Sqlite,
  meta: SnapshotMeta,
  state: State,
  touched: Set<number>,
): { write: (op: SnapshotOp) => void; flush: () => void } {
  const at = meta.startedAt;
  const { runId, companyId } = meta;
  const plans = new PlanWriter(sqlite, {
    companyId,
    at,
    runId,
    seenAt: state.seenAt,
    touchedCompany: (c) => touched.add(c),
  });
  const rejections = { companyId, runId, at, previousRunId: state.rejectionsRunId };
  const reports = new ReportWriter(sqlite, at, runId);
  const write = (o: SnapshotOp) => {
    switch (o.op) {
      case "plan.insert":
        return plans.insert(o.plan, o.rawJson, o.hash);
      case "plan.update":
        return plans.update(o.plan, o.rawJson, o.hash);
      case "plan.revive":
        return plans.revive(o.id, o.hash);
      case "plan.renormalize":
        return plans.renormalize(o.plan);
      case "report.renormalize":
        return reports.renormalize(o.report);
      case "plan.unlisted":
        return plans.unlisted(o.id);
      case "plan.listed":
        return plans.listed(o.id);
      case "plan.delete":
        return plans.markDeleted(o.id);
      case "report.write":
        return reports.write(o.report, o.rawJson, o.hash);
      case "report.revive":
        return reports.revive(o.id, o.hash);
      case "report.touch":
        return reports.touch(o.id);
      case "report.delete":
        return reports.markDeleted(o.id);
      case "reject":
        return recordRejected(sqlite, rejections, o);
      case "error":
        return recordSyncError(sqlite, runId, o);
      case "schema.write":
        return writeSchema(sqlite, companyId, runId, at, o.write);
    }
  };
  // The child rows that the plan writer keeps to write many to a statement.
  return { write, flush: () => plans.flush() };
}
