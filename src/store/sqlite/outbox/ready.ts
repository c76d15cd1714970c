/** Which outbox rows can be queued, which wait on a parent that has no id, which are queued. */
import type { Orphan, RowFilter } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { plucked, prepared } from "../prepared.js";

/** SQL condition and its parameters for a filter on rows aliased `r`. */
function where(filter: RowFilter): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (filter.batchId !== undefined) {
    parts.push("r.batch_id = ?");
    params.push(filter.batchId);
  }
  if (filter.parentKey !== undefined) {
    parts.push("r.parent_key = ?");
    params.push(filter.parentKey);
  }
  return { sql: parts.map((p) => `AND ${p}`).join(" "), params };
}

/** Pending and blocked rows whose parent (if any) has an id become queued; one statement. */
export function takeReady(sqlite: Sqlite, now: string, filter: RowFilter = {}): string[] {
  const w = where(filter);
  return plucked(
    sqlite,
    `UPDATE scenario_requests AS r SET status = 'queued', error_code = NULL, last_error = NULL, updated_at = ?
     WHERE r.status IN ('pending', 'blocked') ${w.sql} AND (r.parent_key IS NULL OR EXISTS
       (SELECT 1 FROM scenario_requests p WHERE p.key = r.parent_key AND p.scenario_id IS NOT NULL
          AND p.status IN ('created', 'exists')))
     RETURNING key`,
  ).all(now, ...w.params) as string[];
}

export function orphans(sqlite: Sqlite, filter: RowFilter = {}): Orphan[] {
  const w = where(filter);
  return prepared(
    sqlite,
    `SELECT r.key, r.status, r.parent_key AS parentKey, p.status AS parentStatus FROM scenario_requests r
     JOIN scenario_requests p ON p.key = r.parent_key
     WHERE r.status IN ('pending', 'queued', 'blocked') ${w.sql}
       AND (p.status IN ('failed', 'blocked') OR (p.status = 'exists' AND p.scenario_id IS NULL))`,
  ).all(...w.params) as Orphan[];
}

export function queuedKeys(sqlite: Sqlite, filter: RowFilter = {}): string[] {
  const w = where(filter);
  return plucked(sqlite, `SELECT r.key FROM scenario_requests r WHERE r.status = 'queued' ${w.sql}`).all(
    ...w.params,
  ) as string[];
}

export function unsettledChildren(sqlite: Sqlite, parentKey: string): string[] {
  return plucked(
    sqlite,
    "SELECT key FROM scenario_requests WHERE parent_key = ? AND status IN ('pending', 'queued', 'blocked')",
  ).all(parentKey) as string[];
}
