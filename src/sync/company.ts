/**
 * One company's pull: fetch -> validate -> normalize -> store. The one pipeline: the
 * one-shot `tas-sync sync` and the BullMQ job both call `syncCompany`.
 *
 * First the network, with no transaction open: the reports, then the plan list streamed into
 * a spool file. Then the store applies the snapshot in one transaction (./snapshot.ts decides
 * what it changes). Around it: a lease (one sync of a company at a time, anywhere), a
 * heartbeat, and a newest-snapshot-wins rule in the store (a snapshot fetched earlier than
 * one already applied is discarded: `superseded`).
 */
import type { TasClient } from "../api/client.js";
import { ApiError, InvalidCredentialsError, UnauthorizedError } from "../api/errors.js";
import type { Logger } from "../log.js";
import type { Store } from "../store/port.js";
import { emptyCounts, type Owner, type RunCounts } from "../store/port-runs.js";
import { noTelemetry, type SyncOutcome, type Telemetry } from "../telemetry.js";
import { describeHolder, LEASE_MS, takeLease } from "./lease.js";
import { thisProcess } from "./owner.js";
import { type ReportFetch, snapshotOps } from "./snapshot.js";
import { Spool } from "./spool.js";

export interface SyncProgress {
  companyId: number;
  phase: "reports" | "plans" | "applying";
  records: number;
  bytes: number;
}

export interface SyncDeps {
  store: Store;
  client: TasClient;
  logger: Logger;
  now?: () => Date;
  telemetry?: Telemetry;
  owner?: Owner;
  /** Abandons the run: nothing is written, it ends `cancelled`. */
  signal?: AbortSignal;
  onProgress?: (p: SyncProgress) => void;
  leaseMs?: number;
}

export interface CompanySyncInput {
  companyId: number;
  reportIds: readonly number[];
  trigger: string;
}

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
}

class Cancelled extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

export async function syncCompany(deps: SyncDeps, input: CompanySyncInput): Promise<CompanySyncResult> {
  const { store, logger } = deps;
  const telemetry = deps.telemetry ?? noTelemetry;
  const clock = deps.now ?? (() => new Date());
  const started = clock();
  const startedAt = started.toISOString();
  const { companyId } = input;
  const log = logger.child({ companyId });
  const owner = deps.owner ?? thisProcess();
  const leaseMs = deps.leaseMs ?? LEASE_MS;
  const elapsed = () => clock().getTime() - started.getTime();
  const heldBack: { plans: number | null } = { plans: null };
  const result = (runId: number | null, status: SyncOutcome, counts: RunCounts, errors: string[]) => {
    const r: CompanySyncResult = {
      runId,
      companyId,
      status,
      counts,
      errors,
      deletionsHeldBack: heldBack.plans,
      durationMs: elapsed(),
    };
    telemetry.syncFinished(companyId, status, r.durationMs / 1000, counts);
    return r;
  };

  const lease = await takeLease(store.runs, companyId, owner, started, leaseMs);
  if (!lease.ok) {
    const why = `skipped: company ${companyId} is being synced by ${describeHolder(lease.holder)}`;
    log.info({ holder: lease.holder.owner }, why);
    return result(null, "skipped", emptyCounts(), [why]);
  }
  const runId = await store.runs.start({ companyId, trigger: input.trigger, startedAt, owner });
  const abort = new AbortController();
  const onStop = () => abort.abort(new Cancelled("the process is stopping"));
  deps.signal?.addEventListener("abort", onStop, { once: true });
  if (deps.signal?.aborted) onStop();
  let leaseLost = false;
  const beat = setInterval(() => {
    const now = clock();
    store.runs
      .heartbeat(runId, now.toISOString())
      .then(() =>
        store.runs.renewLease(companyId, lease.token, new Date(now.getTime() + leaseMs).toISOString()),
      )
      .then((ours) => {
        // Taken over after we stalled past the lease (a pause, a frozen VM): go on; if the
        // other run applied a newer snapshot first, the store discards ours (superseded).
        if (!ours && !leaseLost) {
          leaseLost = true;
          log.warn({ runId }, "the lease of this company was taken over by another process after a stall");
        }
      })
      .catch((err: Error) => log.warn({ err: err.message }, "heartbeat of the sync run failed"));
  }, leaseMs / 6);
  beat.unref();
  const spool = new Spool();
  const counts = emptyCounts();
  const errors: string[] = [];
  const checkAbort = () => {
    if (abort.signal.aborted) throw abort.signal.reason;
  };
  try {
    log.info({ runId, reports: input.reportIds.length }, "sync started");
    const progress = (phase: SyncProgress["phase"], bytes: number) =>
      deps.onProgress?.({ companyId, phase, records: spool.count, bytes });
    progress("reports", 0);
    const reports = await fetchReports(deps.client, input.reportIds, checkAbort);
    log.debug({ runId, reports: reports.length }, "reports fetched");
    let planError: ApiError | null = null;
    let bytes = 0;
    try {
      await deps.client.streamPlans(
        {
          onRecord: (record) => {
            checkAbort();
            spool.append(record);
            bytes += record.length;
            progress("plans", bytes);
          },
          onRestart: () => {
            spool.reset();
            bytes = 0;
          },
        },
        abort.signal,
      );
    } catch (err) {
      if (err instanceof Cancelled) throw err;
      planError = asApiError(err);
    }
    checkAbort();
    log.debug({ runId, records: spool.count, bytes }, "plan list received; applying");
    progress("applying", bytes);
    const applied = await store.snapshots.apply(
      { companyId, runId, startedAt, reportIds: input.reportIds, finishedAt: () => clock().toISOString() },
      (index) =>
        snapshotOps(index, {
          companyId,
          plans: planError ? { error: planError } : { records: spool.records() },
          reports,
          counts,
          errors,
          heldBack,
        }),
      abort.signal,
    );
    if (!applied.applied) {
      const why = `superseded: a snapshot of company ${companyId} fetched later (run ${applied.newerRunId ?? "?"}, started ${applied.newerStartedAt}) was applied first; this one was discarded`;
      log.warn({ runId }, why);
      await store.runs.finish(runId, {
        status: "superseded",
        counts,
        finishedAt: clock().toISOString(),
        error: why,
      });
      return result(runId, "superseded", counts, [why]);
    }
    const { status } = applied.end;
    log.info({ runId, status, ...counts, durationMs: elapsed() }, "sync finished");
    return result(runId, status, counts, errors);
  } catch (err) {
    if (err instanceof Cancelled) {
      const why = `cancelled: ${err.why}; nothing was written`;
      log.warn({ runId }, why);
      await store.runs.finish(runId, {
        status: "cancelled",
        counts: emptyCounts(),
        finishedAt: clock().toISOString(),
        error: why,
      });
      return result(runId, "cancelled", emptyCounts(), [why]);
    }
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ApiError)
      await store.runs.recordError(runId, {
        entity: "plans",
        entityId: null,
        code: err.code,
        httpStatus: err.status ?? null,
        message,
      });
    await store.runs.finish(runId, {
      status: "failed",
      counts: emptyCounts(),
      finishedAt: clock().toISOString(),
      error: message,
    });
    log.error({ runId, err: message }, "sync failed");
    return result(runId, "failed", emptyCounts(), [message]);
  } finally {
    clearInterval(beat);
    deps.signal?.removeEventListener("abort", onStop);
    spool.dispose();
    await store.runs.releaseLease(companyId, lease.token).catch(() => {});
  }
}

/** Reports are few: fetch them first, one at a time (the rate cap applies). */
async function fetchReports(
  client: TasClient,
  ids: readonly number[],
  checkAbort: () => void,
): Promise<ReportFetch[]> {
  const out: ReportFetch[] = [];
  for (const id of ids) {
    checkAbort();
    try {
      out.push({ id, text: await client.getScheduledReport(id) });
    } catch (err) {
      // Refused credentials fail the whole company with one error, not one per report
      // followed by the same failure for the plan list (and a token request each time).
      if (err instanceof UnauthorizedError || err instanceof InvalidCredentialsError) throw err;
      out.push({ id, error: asApiError(err) });
    }
  }
  return out;
}

function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  throw err;
}
