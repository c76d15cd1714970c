/**
 * One run of work on a company's mirror, as sync and replay both do it: the company's lease
 * taken (or a skipped run when another process holds it), the run recorded, its heartbeat
 * beating while the work goes on, and its end recorded whatever the work did.
 */
import type { Logger } from "../log.js";
import type { Owner, RunStore } from "../store/port-runs.js";
import type { SnapshotOps, SnapshotStore } from "../store/port-snapshot.js";
import { noTelemetry, type Telemetry } from "../telemetry.js";
import { holdLease, LEASE_MS } from "./lease.js";
import type { RunObserver } from "./observing.js";
import { thisProcess } from "./owner.js";
import { type CompanySyncResult, type RunContext, type RunEnding, RunRecorder, skipped } from "./run.js";

export interface CompanyRunDeps {
  store: { runs: RunStore };
  logger: Logger;
  now?: () => Date;
  telemetry?: Telemetry;
  owner?: Owner;
  leaseMs?: number;
}

/** What the work gets: its run's id and context (the clock, the company's logger). */
export interface RunHandle {
  runId: number;
  ctx: RunContext;
}

/**
 * Runs `work` as a run of the company, under its lease. A throw from `work` ends the run
 * `failed`; the lease is released in every case.
 */
export async function companyRun(
  deps: CompanyRunDeps,
  companyId: number,
  trigger: string,
  work: (run: RunHandle) => Promise<RunEnding>,
): Promise<CompanySyncResult> {
  const clock = deps.now ?? (() => new Date());
  const owner = deps.owner ?? thisProcess();
  const ctx: RunContext = {
    runs: deps.store.runs,
    companyId,
    clock,
    started: clock(),
    log: deps.logger.child({ companyId }),
    telemetry: deps.telemetry ?? noTelemetry,
  };
  const held = await holdLease({ ...ctx, owner, leaseMs: deps.leaseMs ?? LEASE_MS });
  if (!held.ok) return skipped(ctx, held.holder);
  try {
    const run = await RunRecorder.start(ctx, { trigger, owner });
    held.lease.beat(run.runId);
    let ending: RunEnding;
    try {
      ending = await work({ runId: run.runId, ctx });
    } catch (err) {
      ending = { kind: "failed", error: err };
    }
    return await run.end(ending);
  } finally {
    await held.lease.release();
  }
}

/** What a run's snapshot operations leave to read once they are applied. */
export interface AppliedState {
  observer: RunObserver | null;
  errors: string[];
  /** Deletions of plans held back (a list that was not complete), or null. */
  heldBack: () => number | null;
  /** Of the write transaction, how long it waited for the plan reader's worker thread (null: none). */
  readerWaitMs?: () => number | null;
}

/**
 * Applies a run's snapshot operations (read against the index of `generation`) and says how
 * the run ends; null when the company's data moved since that index (fetch and read again).
 */
export async function applySnapshot(
  deps: { store: { snapshots: SnapshotStore }; telemetry?: Telemetry | undefined },
  run: RunHandle,
  generation: number,
  ops: SnapshotOps,
  state: AppliedState,
  signal?: AbortSignal,
): Promise<RunEnding | null> {
  const { ctx, runId } = run;
  const meta = {
    companyId: ctx.companyId,
    runId,
    startedAt: ctx.started.toISOString(),
    generation,
    finishedAt: () => ctx.clock().toISOString(),
  };
  const applied = await deps.store.snapshots.apply(meta, ops, signal);
  if (!applied.applied) return applied.reason === "superseded" ? { kind: "superseded", ...applied } : null;
  if (state.observer?.changes.length)
    deps.telemetry?.schemaChanged(ctx.companyId, runId, state.observer.changes);
  return {
    kind: "applied",
    end: applied.end,
    writeMs: applied.writeMs,
    readerWaitMs: state.readerWaitMs?.() ?? null,
    errors: state.errors,
    heldBack: state.heldBack(),
  };
}
