/** Which outbox rows can be queued, which wait on a parent that has no id, which are queued. */
import type { Orphan, RowFilter } from "../../port-outbox.js";
import type { Db } from "../pool.js";
import { pluck, run } from "../sql.js";

/** SQL condition on rows aliased `r`, its parameters numbered from `from`. */
function where(filter: RowFilter, from: number): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (filter.batchId !== undefined) {
    params.push(filter.batchId);
    parts.push(`r.batch_id = $${from + params.length - 1}`);
  }
  if (filter.parentKey !== undefined) {
    params.push(filter.parentKey);
    parts.push(`r.parent_key = $${from + params.length - 1}`);
  }
  return { sql: parts.map((p) => `AND ${p}`).join(" "), params };
}

/** Pending and blocked rows whose parent (if any) has an id become queued; one statement. */
export function takeReady(db: Db, now: string, filter: RowFilter = {}): Promise<string[]> {
  const w = where(filter, 2);
  return pluck<string>(
    db,
    `UPDATE scenario_requests AS r SET status = 'queued', error_code = NULL, last_error = NULL, updated_at = $1
     WHERE r.status IN ('pending', 'blocked') ${w.sql} AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.scenario_id IS NOT NULL
          AND p.status IN ('created', 'exists')))
     RETURNING r.key`,
    [now, ...w.params],
  );
}

export async function orphans(db: Db, filter: RowFilter = {}): Promise<Orphan[]> {
  const w = where(filter, 1);
  const { rows } = await run<Orphan>(
    db,
    `SELECT r.key, r.status, r.parent_key AS "parentKey", p.status AS "parentStatus" FROM scenario_requests r
     JOIN scenario_requests p ON p.key = r.parent_key
     WHERE r.status IN ('pending', 'queued', 'blocked') ${w.sql}
       AND (p.status IN ('failed', 'blocked') OR (p.status = 'exists' AND p.scenario_id IS NULL))`,
    w.params,
  );
  return rows;
}

export function queuedKeys(db: Db, filter: RowFilter = {}): Promise<string[]> {
  const w = where(filter, 1);
  return pluck<string>(
    db,
    `SELECT r.key FROM scenario_requests r WHERE r.status = 'queued' ${w.sql}`,
    w.params,
  );
}

export function unsettledChildren(db: Db, parentKey: string): Promise<string[]> {
  return pluck<string>(
    db,
    "SELECT key FROM scenario_requests WHERE parent_key = $1 AND status IN ('pending', 'queued', 'blocked')",
    [parentKey],
  );
}
