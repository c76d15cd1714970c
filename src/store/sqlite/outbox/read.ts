/** Read-only views of the outbox: counts, failure reasons, rows of a status, inline parents. */
import { and, asc, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { scenarioRequests } from "../../../schema/sqlite/index.js";
import {
  emptyStatusCounts,
  type OutboxRow,
  type RequestStatus,
  type StatusCounts,
} from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { perConnection, plucked, prepared } from "../prepared.js";

export function statusCounts(sqlite: Sqlite, batchId?: string): StatusCounts {
  const counts = emptyStatusCounts();
  const sql = `SELECT status, count(*) AS n FROM scenario_requests ${batchId === undefined ? "" : "WHERE batch_id = ?"} GROUP BY status`;
  const stmt = prepared(sqlite, sql);
  const rows = (batchId === undefined ? stmt.all() : stmt.all(batchId)) as {
    status: RequestStatus;
    n: number;
  }[];
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** Rows of a batch not settled yet (pending or queued; blocked rows wait for a person). */
export function unsettledCount(sqlite: Sqlite, batchId: string): number {
  return plucked(
    sqlite,
    "SELECT count(*) FROM scenario_requests WHERE batch_id = ? AND status IN ('pending', 'queued')",
  ).get(batchId) as number;
}

export function failureReasons(sqlite: Sqlite, batchId?: string): { code: string; n: number }[] {
  const where = batchId === undefined ? "" : "AND batch_id = ?";
  const stmt = prepared(
    sqlite,
    `SELECT coalesce(error_code, 'UNKNOWN') AS code, count(*) AS n FROM scenario_requests
     WHERE status = 'failed' ${where} GROUP BY 1 ORDER BY n DESC, code`,
  );
  return (batchId === undefined ? stmt.all() : stmt.all(batchId)) as { code: string; n: number }[];
}

export function rowsWithStatus(
  sqlite: Sqlite,
  status: "failed" | "blocked",
  opts: { code?: string | undefined; limit: number },
): OutboxRow[] {
  const db = perConnection(sqlite, "drizzle", () => drizzle(sqlite));
  const t = scenarioRequests;
  const where =
    opts.code === undefined ? eq(t.status, status) : and(eq(t.status, status), eq(t.errorCode, opts.code));
  return db.select().from(t).where(where).orderBy(asc(t.updatedAt), asc(t.key)).limit(opts.limit).all();
}

export function inlineParentIds(sqlite: Sqlite, projectId: number, scenarioName: string): number[] {
  return plucked(
    sqlite,
    `SELECT DISTINCT json_extract(payload_json, '$.parent.id') FROM scenario_requests
     WHERE json_extract(payload_json, '$.parent.scenario_name') = ?
       AND coalesce(json_extract(payload_json, '$.parent.project_id'), project_id) = ?
       AND typeof(json_extract(payload_json, '$.parent.id')) = 'integer'`,
  ).all(scenarioName, projectId) as number[];
}
