/** The SQLite adapter of RetentionStore: each batch one IMMEDIATE transaction (or a plain read, dry). */
import type {
  KeptRuns,
  PruneBatch,
  PrunedTable,
  PruneResult,
  RetentionStore,
  RunPruneBatch,
} from "../port-retention.js";
import { type Examined, nextCursor, pruneSql } from "../retention-sql.js";
import type { Sqlite } from "./connection.js";
import { plucked, prepared } from "./prepared.js";

/**
 * Each company's newest run, its newest finished one (sync_state.last_run_id, which status and
 * the freshness check show) and newest success, and every applied snapshot's run.
 */
const KEPT = `WITH RECURSIVE companies(id) AS (
    SELECT min(company_id) FROM sync_runs
    UNION ALL SELECT (SELECT min(company_id) FROM sync_runs WHERE company_id > companies.id)
    FROM companies WHERE companies.id IS NOT NULL)
  SELECT (SELECT id FROM sync_runs WHERE company_id = c.id ORDER BY company_id DESC, id DESC LIMIT 1) FROM companies c WHERE c.id IS NOT NULL
  UNION SELECT (SELECT id FROM sync_runs WHERE company_id = c.id AND status IN ('succeeded', 'partial')
      AND trigger <> 'replay' ORDER BY started_at DESC LIMIT 1) FROM companies c WHERE c.id IS NOT NULL
  UNION SELECT applied_run_id FROM sync_state WHERE applied_run_id IS NOT NULL
  UNION SELECT last_run_id FROM sync_state WHERE last_run_id IS NOT NULL`;

export function sqliteRetention(sqlite: Sqlite): RetentionStore {
  const batch = <C extends number | string>(
    table: PrunedTable,
    b: PruneBatch<C>,
    remove: (rows: Examined<C>[]) => Partial<Record<PrunedTable, number>>,
  ): PruneResult<C> => {
    const work = (): PruneResult<C> => {
      const { examine } = pruneSql("sqlite", table);
      const rows = prepared(sqlite, examine).all({
        before: b.before,
        after: b.after ?? (table === "scenario_requests" ? "" : Number.MIN_SAFE_INTEGER),
        limit: b.limit,
      }) as Examined<C>[];
      return { removed: remove(rows), next: nextCursor(table, rows, b.limit) };
    };
    return b.dryRun ? work() : sqlite.transaction(work).immediate();
  };
  /** Removes (or counts) the rows of `keys` that the table's guard lets go. */
  const removeKeys = (
    table: PrunedTable,
    keys: readonly (number | string)[],
    b: PruneBatch<unknown>,
    extra: Record<string, unknown> = {},
    opts: { rejectedBefore?: boolean } = {},
  ): number => {
    if (keys.length === 0) return 0;
    const { where } = pruneSql("sqlite", table, opts);
    const params = { keys: JSON.stringify(keys), before: b.before, ...extra };
    if (b.dryRun)
      return plucked(sqlite, `SELECT count(*) FROM ${table} WHERE ${where}`).get(params) as number;
    return prepared(sqlite, `DELETE FROM ${table} WHERE ${where}`).run(params).changes;
  };
  const gone = <C>(rows: Examined<C>[], keep?: ReadonlySet<number>) =>
    rows
      .filter((r) => Number(r.go) === 1 && !(keep && r.run != null && keep.has(Number(r.run))))
      .map((r) => r.k as number | string);

  return {
    keptRuns: async () => (plucked(sqlite, KEPT).all() as (number | null)[]).filter((id) => id !== null),
    pruneRuns: async (b: RunPruneBatch) =>
      batch("sync_runs", b, (rows) => {
        const keep = new Set(b.keep);
        const ids = gone(rows).filter((id) => !keep.has(id as number));
        const errors = removeKeys("sync_errors", ids, b);
        if (!b.runs) return { sync_errors: errors };
        const rejected = b.rejectedBefore !== null;
        const runs = removeKeys("sync_runs", ids, b, rejected ? { rejectedBefore: b.rejectedBefore } : {}, {
          rejectedBefore: rejected,
        });
        return { sync_errors: errors, sync_runs: runs };
      }),
    pruneRejectedRecords: async (b: PruneBatch<number> & KeptRuns) =>
      batch("rejected_records", b, (rows) => ({
        rejected_records: removeKeys("rejected_records", gone(rows, new Set(b.keep)), b),
      })),
    prunePushRows: async (b) =>
      batch("scenario_requests", b, (rows) => ({
        scenario_requests: removeKeys("scenario_requests", gone(rows), b),
      })),
    pruneSeedRejections: async (b) =>
      batch("seed_rejections", b, (rows) => ({
        seed_rejections: removeKeys("seed_rejections", gone(rows), b),
      })),
    pruneSchemaChanges: async (b) =>
      batch("schema_changes", b, (rows) => ({
        schema_changes: removeKeys("schema_changes", gone(rows), b),
      })),
  };
}
