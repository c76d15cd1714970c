/** The scheduled-reports half of a company's sync: one GET per configured report id. */
import { AccessDeniedError, type ApiError, NotFoundError } from "../api/errors.js";
import { normalizeReport } from "../normalize/index.js";
import type { Sqlite } from "../store/db.js";
import { ReportWriter } from "../store/reports.js";
import { type RunCounts, recordRejected, recordSyncError } from "../store/runs.js";
import { scheduledReportSchema } from "../wire/schemas.js";
import { contentHash, describeIssues, idOf, parseJson } from "./record.js";

export type ReportFetch = { id: number; text: string } | { id: number; error: ApiError };

export interface ReportPhaseResult {
  /** One line per report that could not be fetched (not counting 404 = deleted). */
  errors: string[];
}

/** Write fetched reports into the open transaction. */
export function writeReports(
  sqlite: Sqlite,
  fetched: ReportFetch[],
  ctx: {
    companyId: number;
    runId: number;
    now: string;
    counts: RunCounts;
    /** The plan list came in whole in this run: the service is the one we think it is. */
    plansOk: boolean;
  },
): ReportPhaseResult {
  const writer = new ReportWriter(sqlite);
  const errors: string[] = [];
  const { runId, now, counts } = ctx;
  const reject = (id: number | null, reason: string, text: string) => {
    counts.rejected++;
    recordRejected(sqlite, runId, "scheduled_report", id, reason, text);
  };
  for (const f of fetched) {
    if ("error" in f) {
      const e = f.error;
      // The report is gone from the service: a 404 that says NOT_FOUND, from a service that
      // answered the plan list in this run (a wrong base URL 404s everything, as HTML).
      if (e instanceof NotFoundError && e.symbolic === "NOT_FOUND" && ctx.plansOk) {
        if (writer.markDeleted(f.id, now)) counts.deleted++;
        continue;
      }
      const line = `report ${f.id}: ${e.message}${e instanceof AccessDeniedError ? " (the user lacks permission for this report)" : ""}`;
      errors.push(line);
      recordSyncError(sqlite, runId, "scheduled_report", f.id, e.code, e.status ?? null, e.message);
      continue;
    }
    counts.fetched++;
    const parsed = parseJson(f.text);
    if (!parsed.ok) {
      reject(f.id, parsed.reason, f.text);
      continue;
    }
    const result = scheduledReportSchema.safeParse(parsed.value);
    if (!result.success) {
      reject(idOf(parsed.value) ?? f.id, describeIssues(result.error), f.text);
      continue;
    }
    if (result.data.id !== f.id) {
      reject(f.id, `asked for report ${f.id}, the service answered with report ${result.data.id}`, f.text);
      continue;
    }
    const hash = contentHash(f.text);
    const known = writer.find(f.id);
    if (known && known.hash === hash) {
      if (known.deleted) {
        writer.revive(f.id, f.text, hash, now, runId);
        counts.updated++;
      } else {
        writer.touch(f.id, now);
        counts.unchanged++;
      }
      continue;
    }
    writer.write(normalizeReport(result.data, ctx.companyId), f.text, hash, now, runId);
    if (known) counts.updated++;
    else counts.inserted++;
  }
  return { errors };
}
