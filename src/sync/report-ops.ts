/** The reports of a snapshot: what each fetched (or failed) report changes. */
import { AccessDeniedError, type ApiError, NotFoundError } from "../api/errors.js";
import { readReport } from "../normalize/read.js";
import type { RunCounts } from "../store/port-runs.js";
import type { SnapshotIndex, SnapshotOp } from "../store/port-snapshot.js";
import { contentHash } from "./content-hash.js";
import type { RunObserver } from "./observing.js";

export type ReportFetch = { id: number; text: string } | { id: number; error: ApiError };

/** What the reports of a snapshot need of its input. */
export interface ReportInput {
  companyId: number;
  reports: readonly ReportFetch[];
  counts: RunCounts;
  /** Receives one line per problem, for the run's summary. */
  errors: string[];
  observer: RunObserver | null;
}

/** Returns how many reports could not be fetched (not counting a 404 that means deleted). */
export function* reportOps(
  index: SnapshotIndex,
  input: ReportInput,
  plansOk: boolean,
): Generator<SnapshotOp, number> {
  const { counts, errors } = input;
  let failures = 0;
  const reject = (id: number, reason: string, text: string): SnapshotOp => {
    counts.rejected++;
    return {
      op: "reject",
      entity: "scheduled_report",
      entityId: id,
      reason,
      rawJson: text,
      hash: contentHash(text),
    };
  };
  for (const f of input.reports) {
    const known = index.reports.get(f.id);
    if ("error" in f) {
      const e = f.error;
      // The report is gone from the service: a 404 that says NOT_FOUND, from a service that
      // answered the plan list in this run (a wrong base URL 404s everything, as HTML).
      if (e instanceof NotFoundError && e.symbolic === "NOT_FOUND" && plansOk) {
        if (known && !known.deleted) {
          yield { op: "report.delete", id: f.id };
          counts.deleted++;
        }
        continue;
      }
      failures++;
      const hint = e instanceof AccessDeniedError ? " (the user lacks permission for this report)" : "";
      errors.push(`report ${f.id}: ${e.message}${hint}`);
      yield {
        op: "error",
        entity: "scheduled_report",
        entityId: f.id,
        code: e.code,
        httpStatus: e.status ?? null,
        message: e.message,
      };
      continue;
    }
    counts.fetched++;
    // Unchanged (the content stored for this id, which read when it was stored): not read again.
    const hash = contentHash(f.text);
    if (known && known.hash === hash) {
      if (known.deleted) {
        input.observer?.revived("scheduled_report", f.text, f.id);
        yield { op: "report.revive", id: f.id, hash };
        counts.updated++;
      } else {
        yield { op: "report.touch", id: f.id };
        counts.unchanged++;
      }
      continue;
    }
    const r = readReport(f.text, input.companyId);
    if (!r.ok) {
      input.observer?.rejected("scheduled_report", f.text, r.id ?? f.id);
      yield reject(r.id ?? f.id, r.reason, f.text);
      continue;
    }
    if (r.id !== f.id) {
      yield reject(f.id, `asked for report ${f.id}, the service answered with report ${r.id}`, f.text);
      continue;
    }
    const verdict = input.observer?.take("scheduled_report", r.wire, f.id);
    if (verdict && !verdict.ok) {
      yield reject(f.id, verdict.reason, f.text);
      continue;
    }
    yield { op: "report.write", report: r.normalized, rawJson: f.text, hash, known: known !== undefined };
    if (known) counts.updated++;
    else counts.inserted++;
  }
  return failures;
}
