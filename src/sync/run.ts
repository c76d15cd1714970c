/**
 * A sync run's record, from start to end. `end` is the one place that decides how a run ends:
 * what its record says (unless the snapshot's transaction already ended it), its log line, its
 * telemetry, and the result the caller gets.
 */
import { ApiError } from "../api/errors.js";
import type { Logger } from "../log.js";
import { emptyCounts, type Lease, type RunCounts, type RunEnd, type RunStore } from "../store/port-runs.js";
import type { SyncOutcome, Telemetry } from "../telemetry.js";
import { describeHolder } from "./lease.js";

export interface CompanySyncResult {
  /** null when the run was skipped (another process holds the company). */
  runId: number | null;
  companyId: number;
  status: SyncOutcome;
  counts: RunCounts;
  /** One line per problem (plan list failure, report errors, held-back deletions, skip reason). */
  errors: string[];
  /** Live plans missing from the list that were not marked deleted (null: deletions applied, or no list). */
  deletionsHeldBack: number | null;
  durationMs: number;
  /** How long the snapshot's write transaction was open (null: nothing was written). */
  writeMs: number | null;
  /**
   * Of that, how long it waited for the worker thread that read the plan list's tail (null: no
   * worker read it): the part of the write lock that reading, not writing, held.
   */
  readerWaitMs: number | null;
}

/** The snapshot's write transaction, when there was one. */
type Write = Pick<CompanySyncResult, "writeMs" | "readerWaitMs">;

/** How a run ends. */
export type RunEnding =
  /** The snapshot was applied; its transaction ended the run. */
  | {
      kind: "applied";
      end: RunEnd;
      writeMs: number;
      readerWaitMs: number | null;
      errors: string[];
      heldBack: number | null;
    }
  | { kind: "superseded"; newerRunId: number | null; newerStartedAt: string }
  /** The company's data kept changing under the sync (another writer): nothing was written. */
  | { kind: "stale"; attempts: number }
  | { kind: "cancelled"; why: string }
  | { kind: "failed"; error: unknown };

export interface RunContext {
  runs: RunStore;
  companyId: number;
  clock: () => Date;
  started: Date;
  log: Logger;
  telemetry: Telemetry;
}

export class RunRecorder {
  private constructor(
    private readonly ctx: RunContext,
    readonly runId: number,
  ) {}

  static async start(ctx: RunContext, run: { trigger: string; owner: { host: string; pid: number } }) {
    const runId = await ctx.runs.start({
      companyId: ctx.companyId,
      trigger: run.trigger,
      startedAt: ctx.started.toISOString(),
      owner: run.owner,
    });
    return new RunRecorder(ctx, runId);
  }

  async end(ending: RunEnding): Promise<CompanySyncResult> {
    const { runs, log } = this.ctx;
    const runId = this.runId;
    const finishedAt = () => this.ctx.clock().toISOString();
    switch (ending.kind) {
      case "applied": {
        const { status, counts } = ending.end;
        const { writeMs, readerWaitMs } = ending;
        const waited = readerWaitMs === null ? {} : { readerWaitMs: Math.round(readerWaitMs) };
        log.info({ runId, status, ...counts, writeMs: Math.round(writeMs), ...waited }, "sync finished");
        return this.#result(status, counts, ending.errors, ending.heldBack, { writeMs, readerWaitMs });
      }
      case "superseded": {
        const why = `superseded: a snapshot of company ${this.ctx.companyId} fetched later (run ${ending.newerRunId ?? "?"}, started ${ending.newerStartedAt}) was applied first; this one was discarded`;
        log.warn({ runId }, why);
        await runs.finish(runId, {
          status: "superseded",
          counts: emptyCounts(),
          finishedAt: finishedAt(),
          error: why,
        });
        return this.#result("superseded", emptyCounts(), [why]);
      }
      case "cancelled": {
        const why = `cancelled: ${ending.why}; nothing was written`;
        log.warn({ runId }, why);
        await runs.finish(runId, {
          status: "cancelled",
          counts: emptyCounts(),
          finishedAt: finishedAt(),
          error: why,
        });
        return this.#result("cancelled", emptyCounts(), [why]);
      }
      case "stale":
      case "failed": {
        const err = ending.kind === "failed" ? ending.error : null;
        const message =
          ending.kind === "stale"
            ? `the company's plans were changed by another process during each of ${ending.attempts} attempts; nothing was written`
            : err instanceof Error
              ? err.message
              : String(err);
        if (err instanceof ApiError)
          await runs.recordError(runId, {
            entity: "plans",
            entityId: null,
            code: err.code,
            httpStatus: err.status ?? null,
            message,
          });
        await runs.finish(runId, {
          status: "failed",
          counts: emptyCounts(),
          finishedAt: finishedAt(),
          error: message,
        });
        log.error({ runId, err: message }, "sync failed");
        return this.#result("failed", emptyCounts(), [message]);
      }
    }
  }

  #result(
    status: SyncOutcome,
    counts: RunCounts,
    errors: string[],
    heldBack: number | null = null,
    write: Write = { writeMs: null, readerWaitMs: null },
  ): CompanySyncResult {
    return finish(this.ctx, this.runId, status, counts, errors, heldBack, write);
  }
}

/** Another process syncs the company: no run at all. */
export function skipped(ctx: RunContext, holder: Lease): CompanySyncResult {
  const why = `skipped: company ${ctx.companyId} is being synced by ${describeHolder(holder)}`;
  ctx.log.info({ holder: holder.owner }, why);
  return finish(ctx, null, "skipped", emptyCounts(), [why], null, { writeMs: null, readerWaitMs: null });
}

function finish(
  ctx: RunContext,
  runId: number | null,
  status: SyncOutcome,
  counts: RunCounts,
  errors: string[],
  heldBack: number | null,
  write: Write,
): CompanySyncResult {
  const durationMs = ctx.clock().getTime() - ctx.started.getTime();
  ctx.telemetry.syncFinished(ctx.companyId, status, durationMs / 1000, counts);
  return {
    runId,
    companyId: ctx.companyId,
    status,
    counts,
    errors,
    deletionsHeldBack: heldBack,
    durationMs,
    ...write,
  };
}
