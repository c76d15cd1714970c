/**
 * One company's pull: fetch -> validate -> normalize -> store. The one pipeline: the
 * one-shot `tas-sync sync` and the BullMQ job both call `syncCompany`.
 *
 * Two phases. First the network, with no database transaction open: the reports, and the
 * plan list streamed into a spool file. Then everything is applied in one synchronous
 * transaction (no await inside), so the write lock is held only for local work and nothing
 * else in the process can interleave a write; readers see the whole snapshot or none of it.
 */
import type { TasClient } from "../api/client.js";
import { ApiError, InvalidCredentialsError, UnauthorizedError } from "../api/errors.js";
import type { Logger } from "../log.js";
import type { Sqlite } from "../store/db.js";
import {
  emptyCounts,
  finishRun,
  type RunCounts,
  type RunStatus,
  recordSyncError,
  startRun,
} from "../store/runs.js";
import { PlanPhase } from "./plans-phase.js";
import { type ReportFetch, writeReports } from "./reports-phase.js";
import { Spool } from "./spool.js";

export interface SyncDeps {
  sqlite: Sqlite;
  client: TasClient;
  logger: Logger;
  now?: () => Date;
}

export interface CompanySyncInput {
  companyId: number;
  reportIds: readonly number[];
  trigger: string;
}

export interface CompanySyncResult {
  runId: number;
  companyId: number;
  status: Exclude<RunStatus, "running">;
  counts: RunCounts;
  /** One line per problem (plan list failure, report errors). */
  errors: string[];
  durationMs: number;
}

const PROGRESS_EVERY = 10_000;

export async function syncCompany(deps: SyncDeps, input: CompanySyncInput): Promise<CompanySyncResult> {
  const { sqlite, client, logger } = deps;
  const clock = deps.now ?? (() => new Date());
  const started = clock();
  const now = started.toISOString();
  const log = logger.child({ companyId: input.companyId });
  const runId = startRun(sqlite, input.companyId, input.trigger, now);
  const spool = new Spool();
  const elapsed = () => clock().getTime() - started.getTime();
  try {
    log.info({ runId, reports: input.reportIds.length }, "sync started");
    const reports = await fetchReports(client, input.reportIds);
    let planError: ApiError | null = null;
    try {
      await client.streamPlans({
        onRecord: (bytes) => {
          spool.append(bytes);
          if (spool.count % PROGRESS_EVERY === 0)
            log.info({ runId, received: spool.count }, "plans received");
        },
        onRestart: () => spool.reset(),
      });
    } catch (err) {
      planError = asApiError(err);
    }
    const outcome = apply(sqlite, {
      ...input,
      runId,
      now,
      spool,
      planError,
      reports,
      finishedAt: () => clock().toISOString(),
    });
    log.info({ runId, status: outcome.status, ...outcome.counts, durationMs: elapsed() }, "sync finished");
    return { runId, companyId: input.companyId, ...outcome, durationMs: elapsed() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof ApiError)
      recordSyncError(sqlite, runId, "plans", null, err.code, err.status ?? null, message);
    finishRun(sqlite, runId, "failed", emptyCounts(), clock().toISOString(), message);
    log.error({ runId, err: message }, "sync failed");
    return {
      runId,
      companyId: input.companyId,
      status: "failed",
      counts: emptyCounts(),
      errors: [message],
      durationMs: elapsed(),
    };
  } finally {
    spool.dispose();
  }
}

interface ApplyInput extends CompanySyncInput {
  runId: number;
  now: string;
  spool: Spool;
  planError: ApiError | null;
  reports: ReportFetch[];
  finishedAt: () => string;
}

/** The local phase: one IMMEDIATE transaction, synchronous from BEGIN to COMMIT. */
function apply(sqlite: Sqlite, a: ApplyInput): Pick<CompanySyncResult, "status" | "counts" | "errors"> {
  return sqlite
    .transaction(() => {
      const counts = emptyCounts();
      const errors: string[] = [];
      const fail = (code: string, status: number | null, message: string) => {
        errors.push(`plans: ${message}`);
        recordSyncError(sqlite, a.runId, "plans", null, code, status, message);
      };
      let plansOk = false;
      if (a.planError) {
        // A failed or partial list writes nothing and deletes nothing.
        fail(a.planError.code, a.planError.status ?? null, a.planError.message);
      } else {
        const phase = new PlanPhase({ sqlite, companyId: a.companyId, runId: a.runId, now: a.now, counts });
        for (const text of a.spool.records()) phase.record(text);
        phase.complete();
        const m = phase.mismatch;
        if (m) {
          fail(
            "COMPANY_MISMATCH",
            null,
            `${m.count} plan(s) belong to company ${m.companyId}, not ${a.companyId}: the credentials of company ${a.companyId} are another company's; nothing was deleted`,
          );
        }
        plansOk = !m;
      }
      const reportResult = writeReports(sqlite, a.reports, {
        companyId: a.companyId,
        runId: a.runId,
        now: a.now,
        counts,
        plansOk,
      });
      errors.push(...reportResult.errors);
      const status = statusOf(plansOk, reportResult.errors.length, a.reportIds.length);
      finishRun(sqlite, a.runId, status, counts, a.finishedAt(), errors.length ? errors.join("; ") : null);
      return { status, counts, errors };
    })
    .immediate();
}

/** Reports are few: fetch them first, one at a time (the rate cap applies). */
async function fetchReports(client: TasClient, ids: readonly number[]): Promise<ReportFetch[]> {
  const out: ReportFetch[] = [];
  for (const id of ids) {
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

function statusOf(plansOk: boolean, reportErrors: number, reportCount: number): CompanySyncResult["status"] {
  if (plansOk && reportErrors === 0) return "succeeded";
  if (!plansOk && (reportCount === 0 || reportErrors === reportCount)) return "failed";
  return "partial";
}
