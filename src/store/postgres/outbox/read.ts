/** Read-only views of the outbox: counts, failure reasons, rows of a status, inline parents. */
import { scenarioRequests } from "../../../schema/postgres/index.js";
import {
  emptyStatusCounts,
  type OutboxRow,
  type RequestStatus,
  type StatusCounts,
} from "../../port-outbox.js";
import type { Db } from "../pool.js";
import { pluck, run, selectList } from "../sql.js";

export async function statusCounts(db: Db, batchId?: string): Promise<StatusCounts> {
  const counts = emptyStatusCounts();
  const { rows } = await run<{ status: RequestStatus; n: number }>(
    db,
    `SELECT status, count(*) AS n FROM scenario_requests ${batchId === undefined ? "" : "WHERE batch_id = $1"} GROUP BY status`,
    batchId === undefined ? [] : [batchId],
  );
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** Rows of a batch not settled yet (pending or queued; blocked rows wait for a person). */
export async function unsettledCount(db: Db, batchId: string): Promise<number> {
  const [n] = await pluck<number>(
    db,
    "SELECT count(*) FROM scenario_requests WHERE batch_id = $1 AND status IN ('pending', 'queued')",
    [batchId],
  );
  return n ?? 0;
}

// COLLATE "C": text sorts by code point, as in SQLite, whatever the database's collation.
export async function failureReasons(db: Db, batchId?: string): Promise<{ code: string; n: number }[]> {
  const where = batchId === undefined ? "" : "AND batch_id = $1";
  const { rows } = await run<{ code: string; n: number }>(
    db,
    `SELECT coalesce(error_code, 'UNKNOWN') AS code, count(*) AS n FROM scenario_requests
     WHERE status = 'failed' ${where} GROUP BY 1 ORDER BY n DESC, coalesce(error_code, 'UNKNOWN') COLLATE "C"`,
    batchId === undefined ? [] : [batchId],
  );
  return rows;
}

const ROWS = `SELECT ${selectList(scenarioRequests)} FROM scenario_requests`;

export async function rowsWithStatus(
  db: Db,
  status: "failed" | "blocked",
  opts: { code?: string | undefined; limit: number },
): Promise<OutboxRow[]> {
  const { rows } = await run<OutboxRow>(
    db,
    `${ROWS} WHERE status = $1 AND ($2::text IS NULL OR error_code = $2)
     ORDER BY updated_at, key COLLATE "C" LIMIT $3`,
    [status, opts.code ?? null, opts.limit],
  );
  return rows;
}

/** Integer ids (below 2^53) that rows give as `parent.id` of a scenario of this project and name. */
export function inlineParentIds(db: Db, projectId: number, scenarioName: string): Promise<number[]> {
  return pluck<number>(
    db,
    `SELECT DISTINCT (p ->> 'id')::bigint FROM
       (SELECT payload_json::jsonb -> 'parent' AS p, project_id FROM scenario_requests
        WHERE payload_json LIKE '%"parent"%') r
     WHERE p ->> 'scenario_name' = $1
       AND CASE WHEN coalesce(jsonb_typeof(p -> 'project_id'), 'null') = 'null' THEN project_id = $2
           WHEN jsonb_typeof(p -> 'project_id') = 'number' THEN (p ->> 'project_id')::numeric = $2 ELSE false END
       AND jsonb_typeof(p -> 'id') = 'number' AND (p ->> 'id') ~ '^-?[0-9]{1,15}$'`,
    [scenarioName, projectId],
  );
}
