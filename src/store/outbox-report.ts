/** Read-only views of the outbox for people: counts, failure reasons, failed rows. */
import type { Sqlite } from "./db.js";
import type { RequestStatus } from "./outbox.js";
import { plucked, prepared } from "./prepared.js";

export type StatusCounts = Record<RequestStatus, number>;

export function statusCounts(sqlite: Sqlite, batchId?: string): StatusCounts {
  const counts: StatusCounts = { pending: 0, queued: 0, created: 0, exists: 0, failed: 0 };
  const sql = `SELECT status, count(*) AS n FROM scenario_requests ${batchId === undefined ? "" : "WHERE batch_id = ?"} GROUP BY status`;
  const stmt = prepared(sqlite, sql);
  const rows = (batchId === undefined ? stmt.all() : stmt.all(batchId)) as {
    status: RequestStatus;
    n: number;
  }[];
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** Rows of a batch not settled yet (pending or queued). */
export function unsettledCount(sqlite: Sqlite, batchId: string): number {
  return plucked(
    sqlite,
    "SELECT count(*) FROM scenario_requests WHERE batch_id = ? AND status IN ('pending', 'queued')",
  ).get(batchId) as number;
}

export function failureReasons(sqlite: Sqlite, batchId?: string): { code: string; n: number }[] {
  const where = batchId === undefined ? "" : "AND batch_id = ?";
  const stmt = sqlite.prepare(
    `SELECT coalesce(error_code, 'UNKNOWN') AS code, count(*) AS n FROM scenario_requests WHERE status = 'failed' ${where} GROUP BY 1 ORDER BY n DESC`,
  );
  return (batchId === undefined ? stmt.all() : stmt.all(batchId)) as { code: string; n: number }[];
}

export interface FailedRow {
  key: string;
  companyId: number;
  projectId: number;
  scenarioName: string;
  attempts: number;
  errorCode: string | null;
  lastError: string | null;
  sourceFile: string | null;
  sourceLine: number | null;
  updatedAt: string;
}

export function failedRows(sqlite: Sqlite, opts: { code?: string | undefined; limit: number }): FailedRow[] {
  return sqlite
    .prepare(
      `SELECT key, company_id AS companyId, project_id AS projectId, scenario_name AS scenarioName, attempts,
         error_code AS errorCode, last_error AS lastError, source_file AS sourceFile, source_line AS sourceLine,
         updated_at AS updatedAt
       FROM scenario_requests WHERE status = 'failed' AND (? IS NULL OR error_code = ?) ORDER BY updated_at, key LIMIT ?`,
    )
    .all(opts.code ?? null, opts.code ?? null, opts.limit) as FailedRow[];
}

/** Failed rows back to pending (optionally of one reason code or key); returns their keys. */
