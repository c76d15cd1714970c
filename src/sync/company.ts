/**
 * One company's pull: fetch -> validate -> normalize -> store, in one SQLite transaction.
 * The one pipeline: the one-shot `tas-sync sync` and the BullMQ job both call this.
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

export interface SyncDeps {
  /** A connection this sync may hold a transaction on while it streams (not shared). */
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

const busy = new WeakSet<Sqlite>();
const PROGRESS_EVERY = 10_000;

export async function syncCompany(deps: SyncDeps, input: CompanySyncInput): Promise<CompanySyncResult> {
  const { sqlite, client, logger } = deps;
  if (busy.has(sqlite))
    throw new Error("syncCompany: this connection is already running a sync; give each sync its own");
  busy.add(sqlite);
  const clock = deps.now ?? (() => new Date());
  const started = clock();
  const now = started.toISOString();
  const log = logger.child({ companyId: input.companyId });
  const runId = startRun(sqlite, input.companyId, input.trigger, now);
  const counts = emptyCounts();
  const errors: string[] = [];
  let plansOk = false;
  try {
    log.info({ runId, reports: input.reportIds.length }, "sync started");
    const reports = await fetchReports(client, input.reportIds);

    sqlite.exec("BEGIN IMMEDIATE");
    try {
      sqlite.exec("SAVEPOINT plans");
      const phase = new PlanPhase({ sqlite, companyId: input.companyId, runId, now, counts });
      try {
        let received = 0;
        await client.streamPlans({
          onRecord: (text) => {
            phase.record(text);
            // Progress on long lists, for whoever watches the log.
            if (++received % PROGRESS_EVERY === 0) log.info({ runId, received }, "plans received");
          },
          onRestart: () => {
            sqlite.exec("ROLLBACK TO plans");
            received = 0;
            phase.restart();
          },
        });
        if (!phase.complete()) {
          log.warn("some rejected plans had no id; not deleting missing plans this run");
        }
        sqlite.exec("RELEASE plans");
        plansOk = true;
      } catch (err) {
        // A failed or partial list writes nothing and deletes nothing.
        sqlite.exec("ROLLBACK TO plans");
        sqlite.exec("RELEASE plans");
        const e = asApiError(err);
        Object.assign(counts, emptyCounts());
        errors.push(`plans: ${e.message}`);
        recordSyncError(sqlite, runId, "plans", null, e.code, e.status ?? null, e.message);
      }
      const reportResult = writeReports(sqlite, reports, { companyId: input.companyId, runId, now, counts });
      errors.push(...reportResult.errors);
      const status = statusOf(plansOk, reportResult.errors.length, input.reportIds.length);
      finishRun(
        sqlite,
        runId,
        status,
        counts,
        clock().toISOString(),
        errors.length ? errors.join("; ") : null,
      );
      sqlite.exec("COMMIT");
      const durationMs = clock().getTime() - started.getTime();
      log.info({ runId, status, ...counts, durationMs }, "sync finished");
      return { runId, companyId: input.companyId, status, counts, errors, durationMs };
    } catch (err) {
      if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
      throw err;
    }
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
      errors: [...errors, message],
      durationMs: clock().getTime() - started.getTime(),
    };
  } finally {
    busy.delete(sqlite);
  }
}

/** Reports are few: fetch them before the transaction, one at a time (the rate cap applies). */
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
