/** The PostgreSQL adapter of RetentionStore: each batch one short transaction (or plain reads, dry). */
import type {
  KeptRuns,
  PruneBatch,
  PrunedTable,
  PruneResult,
  RetentionStore,
  RunPruneBatch,
} from "../port-retention.js";
import { type Examined, nextCursor, pruneSql } from "../retention-sql.js";
import type { Db, Pool } from "./pool.js";
import { pluck, run } from "./sql.js";
import { transaction } from "./tx.js";

/**
 * As on SQLite. `BETWEEN c.id AND c.id` says `=` without letting the planner drop company_id
 * from the order: the newest run is then read from sync_runs_company_run_idx, not by walking the
 * primary key back filtering by company.
 */
const KEPT = `WITH RECURSIVE companies(id) AS (
    SELECT min(company_id) FROM sync_runs
    UNION ALL SELECT (SELECT min(company_id) FROM sync_runs WHERE company_id > companies.id)
    FROM companies WHERE companies.id IS NOT NULL)
  SELECT (SELECT id FROM sync_runs WHERE company_id BETWEEN c.id AND c.id ORDER BY company_id DESC, id DESC LIMIT 1) FROM companies c WHERE c.id IS NOT NULL
  UNION SELECT (SELECT id FROM sync_runs WHERE company_id = c.id AND status IN ('succeeded', 'partial')
      AND trigger <> 'replay' ORDER BY started_at DESC LIMIT 1) FROM companies c WHERE c.id IS NOT NULL
  UNION SELECT applied_run_id FROM sync_state WHERE applied_run_id IS NOT NULL
  UNION SELECT last_run_id FROM sync_state WHERE last_run_id IS NOT NULL`;

/** `:name` placeholders as `$n`, with their values in order (one `$n` per distinct name). */
function numbered(text: string, params: Record<string, unknown>): { text: string; values: unknown[] } {
  const order: string[] = [];
  const out = text.replace(/(?<!:):([a-zA-Z]\w*)/g, (_, name: string) => {
    let i = order.indexOf(name);
    if (i < 0) i = order.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text: out, values: order.map((n) => params[n]) };
}

async function query<R extends object>(
  db: Db,
  sql: string,
  params: Record<string, unknown>,
): Promise<{ rows: R[]; rowCount: number }> {
  const { text, values } = numbered(sql, params);
  return run<R>(db, text, values);
}

export function postgresRetention(pool: Pool): RetentionStore {
  const batch = async <C extends number | string>(
    table: PrunedTable,
    b: PruneBatch<C>,
    remove: (db: Db, rows: Examined<C>[]) => Promise<Partial<Record<PrunedTable, number>>>,
  ): Promise<PruneResult<C>> => {
    const work = async (db: Db): Promise<PruneResult<C>> => {
      const { examine } = pruneSql("postgres", table);
      const text = table === "scenario_requests";
      const { rows } = await query<Examined<C>>(db, examine, {
        before: b.before,
        after: b.after ?? (text ? "" : Number.MIN_SAFE_INTEGER),
        limit: b.limit,
      });
      // bigint ids come back as text
      const typed = rows.map((r) => ({ ...r, k: (text ? r.k : Number(r.k)) as C }));
      return { removed: await remove(db, typed), next: nextCursor(table, typed, b.limit) };
    };
    return b.dryRun ? work(pool) : transaction(pool, work);
  };
  const removeKeys = async (
    db: Db,
    table: PrunedTable,
    keys: readonly (number | string)[],
    b: PruneBatch<unknown>,
    extra: Record<string, unknown> = {},
    opts: { rejectedBefore?: boolean } = {},
  ): Promise<number> => {
    if (keys.length === 0) return 0;
    const { where } = pruneSql("postgres", table, opts);
    const params = { keys, before: b.before, ...extra };
    // Only the placeholders the clause uses are bound.
    const used = Object.fromEntries(Object.entries(params).filter(([k]) => where.includes(`:${k}`)));
    if (b.dryRun) {
      const { rows } = await query<{ n: string }>(
        db,
        `SELECT count(*) AS n FROM ${table} WHERE ${where}`,
        used,
      );
      return Number(rows[0]?.n ?? 0);
    }
    return (await query(db, `DELETE FROM ${table} WHERE ${where}`, used)).rowCount;
  };
  const gone = <C>(rows: Examined<C>[], keep?: ReadonlySet<number>) =>
    rows
      .filter((r) => Number(r.go) === 1 && !(keep && r.run != null && keep.has(Number(r.run))))
      .map((r) => r.k as number | string);

  return {
    keptRuns: async () =>
      (await pluck<string | null>(pool, KEPT)).filter((id) => id !== null).map((id) => Number(id)),
    pruneRuns: (b: RunPruneBatch) =>
      batch("sync_runs", b, async (db, rows) => {
        const keep = new Set(b.keep);
        const ids = gone(rows).filter((id) => !keep.has(id as number));
        const errors = await removeKeys(db, "sync_errors", ids, b);
        if (!b.runs) return { sync_errors: errors };
        const rejected = b.rejectedBefore !== null;
        const runs = await removeKeys(
          db,
          "sync_runs",
          ids,
          b,
          rejected ? { rejectedBefore: b.rejectedBefore } : {},
          { rejectedBefore: rejected },
        );
        return { sync_errors: errors, sync_runs: runs };
      }),
    pruneRejectedRecords: (b: PruneBatch<number> & KeptRuns) =>
      batch("rejected_records", b, async (db, rows) => ({
        rejected_records: await removeKeys(db, "rejected_records", gone(rows, new Set(b.keep)), b),
      })),
    prunePushRows: (b) =>
      batch("scenario_requests", b, async (db, rows) => ({
        scenario_requests: await removeKeys(db, "scenario_requests", gone(rows), b),
      })),
    pruneSeedRejections: (b) =>
      batch("seed_rejections", b, async (db, rows) => ({
        seed_rejections: await removeKeys(db, "seed_rejections", gone(rows), b),
      })),
    pruneSchemaChanges: (b) =>
      batch("schema_changes", b, async (db, rows) => ({
        schema_changes: await removeKeys(db, "schema_changes", gone(rows), b),
      })),
  };
}
