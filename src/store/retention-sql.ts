/**
 * The SQL of retention's batches, for both dialects (store/sqlite/retention.ts and
 * store/postgres/retention.ts run it). A batch examines at most `:limit` rows of a table in key
 * order after its cursor (`:after`), reading for each whether it is old enough (`aged`) and may
 * go as far as this row alone says (`go`); the rows that may go are then removed by key with the
 * table's `guard` (what else must not point at them), or counted (a dry run). Placeholders are
 * `:name`; PostgreSQL's adapter numbers them.
 */
import { SETTLED } from "../tables/outbox-states.js";
import type { Dialect } from "./port.js";
import type { PrunedTable } from "./port-retention.js";

const settled = SETTLED.map((s) => `'${s}'`).join(", ");

export interface PruneSql {
  /** Columns k (the key), aged and go (0/1), and run (rejected records' run) when asked. */
  examine: string;
  /** Rows of `:keys` that may go: a WHERE clause without the word. */
  where: string;
}

function time(d: Dialect, name: string): string {
  return d === "postgres" ? `:${name}::timestamptz` : `:${name}`;
}

/** `column IN` the list bound to `:keys` (a JSON array on SQLite, an array on PostgreSQL). */
function inKeys(d: Dialect, column: string, type: "bigint" | "text" = "bigint"): string {
  return d === "postgres"
    ? `${column} = ANY(:keys::${type}[])`
    : `${column} IN (SELECT value FROM json_each(:keys))`;
}

/** One batch of a table. `rejectedBefore` (sync_runs only): whether a cutoff for rejected records is given. */
export function pruneSql(d: Dialect, table: PrunedTable, opts: { rejectedBefore?: boolean } = {}): PruneSql {
  const before = time(d, "before");
  switch (table) {
    case "sync_runs":
      return {
        examine: `SELECT id AS k, CASE WHEN started_at < ${before} THEN 1 ELSE 0 END AS aged,
            CASE WHEN started_at < ${before} AND status <> 'running' THEN 1 ELSE 0 END AS go
          FROM sync_runs WHERE id > :after ORDER BY id LIMIT :limit`,
        // A run that changed records is named by plan or report versions (history stays, and
        // so does the run that wrote it); the observed schema names the runs that saw a path
        // first or last, and that found a change.
        where: `${inKeys(d, "id")} AND status <> 'running'
          AND inserted = 0 AND updated = 0 AND deleted = 0
          AND (${opts.rejectedBefore ? `started_at < ${time(d, "rejectedBefore")} OR ` : ""}NOT EXISTS
            (SELECT 1 FROM rejected_records rr
              WHERE rr.company_id = sync_runs.company_id AND rr.last_run_id = sync_runs.id))
          AND NOT EXISTS (SELECT 1 FROM schema_changes c WHERE c.run_id = sync_runs.id)
          AND id NOT IN (SELECT first_run_id FROM schema_paths WHERE first_run_id IS NOT NULL)
          AND id NOT IN (SELECT last_run_id FROM schema_paths WHERE last_run_id IS NOT NULL)`,
      };
    case "sync_errors":
      // Removed by run (the runs' batch): see pruneErrorsWhere.
      return { examine: "", where: inKeys(d, "run_id") };
    case "rejected_records":
      return {
        // One row per distinct content and episode: its own last sighting says its age. `run`
        // (its last run) lets a kept run keep what it rejected (what is rejected now).
        examine: `SELECT rr.id AS k, rr.last_run_id AS run,
            CASE WHEN rr.last_seen_at < ${before} THEN 1 ELSE 0 END AS aged,
            CASE WHEN rr.last_seen_at < ${before} THEN 1 ELSE 0 END AS go
          FROM rejected_records rr WHERE rr.id > :after ORDER BY rr.id LIMIT :limit`,
        where: inKeys(d, "id"),
      };
    case "scenario_requests": {
      const old = (alias: string) => `${alias}status IN (${settled}) AND ${alias}updated_at < ${before}`;
      return {
        examine: `SELECT key AS k, 1 AS aged, CASE WHEN ${old("")} THEN 1 ELSE 0 END AS go
          FROM scenario_requests WHERE key > :after ORDER BY key LIMIT :limit`,
        // A child that stays needs its parent's row (its scenario id, its state).
        where: `${inKeys(d, "key", "text")} AND ${old("")} AND NOT EXISTS (SELECT 1 FROM scenario_requests c
          WHERE c.parent_key = scenario_requests.key AND NOT (${old("c.")}))`,
      };
    }
    case "seed_rejections":
      return {
        examine: `SELECT id AS k, CASE WHEN recorded_at < ${before} THEN 1 ELSE 0 END AS aged,
            CASE WHEN recorded_at < ${before} THEN 1 ELSE 0 END AS go
          FROM seed_rejections WHERE id > :after ORDER BY id LIMIT :limit`,
        where: inKeys(d, "id"),
      };
    case "schema_changes":
      return {
        examine: `SELECT id AS k, CASE WHEN detected_at < ${before} THEN 1 ELSE 0 END AS aged,
            CASE WHEN detected_at < ${before} AND acknowledged_at IS NOT NULL THEN 1 ELSE 0 END AS go
          FROM schema_changes WHERE id > :after ORDER BY id LIMIT :limit`,
        where: inKeys(d, "id"),
      };
  }
}

/**
 * Tables whose keys grow with time (ids): a batch with no aged row means the rest is newer,
 * and the pass ends there. scenario_requests is walked by key, and rejected_records (ordered by
 * first sighting, aged by last) by id, each to its end.
 */
const TIME_ORDERED: ReadonlySet<PrunedTable> = new Set(["sync_runs", "seed_rejections", "schema_changes"]);

/** An examined row. */
export interface Examined<C> {
  k: C;
  aged: number | boolean;
  go: number | boolean;
  run?: number | string | null;
}

/** Where the next batch starts, from the rows one examined (null: the table is done). */
export function nextCursor<C>(table: PrunedTable, rows: readonly Examined<C>[], limit: number): C | null {
  const last = rows.at(-1);
  if (!last || rows.length < limit) return null;
  if (TIME_ORDERED.has(table) && !rows.some((r) => Number(r.aged) === 1)) return null;
  return last.k;
}
