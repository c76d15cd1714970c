/** What the database holds for a company, read in one read transaction (no write lock). */
import { PlanIndexBuilder } from "../../plan-index.js";
import type { KnownRecord, SnapshotIndex } from "../../port-snapshot.js";
import type { Sqlite } from "../connection.js";
import { plucked, prepared } from "../prepared.js";

export function loadIndex(sqlite: Sqlite, companyId: number, reportIds: readonly number[]): SnapshotIndex {
  return sqlite.transaction((): SnapshotIndex => {
    const generation =
      (plucked(sqlite, "SELECT write_generation FROM sync_state WHERE company_id = ?").get(companyId) as
        | number
        | undefined) ?? 0;
    const known = new PlanIndexBuilder();
    // From the covering index plans_company_index_idx alone: the wide rows are never read.
    const rows = prepared(sqlite, "SELECT id, content_hash, deleted_at FROM plans WHERE company_id = ?")
      .raw(true)
      .iterate(companyId) as IterableIterator<[number, string, string | null]>;
    for (const [id, hash, deletedAt] of rows) known.add(id, hash, deletedAt !== null);
    const unlisted = new Set(
      plucked(sqlite, "SELECT plan_id FROM unlisted_plans WHERE company_id = ?").all(companyId) as number[],
    );
    const rejected = new Set(
      plucked(sqlite, "SELECT content_hash FROM v_rejected_now WHERE company_id = ? AND entity = 'plan'").all(
        companyId,
      ) as string[],
    );
    const reports = new Map<number, KnownRecord>();
    const find = prepared(sqlite, "SELECT content_hash, deleted_at FROM scheduled_reports WHERE id = ?").raw(
      true,
    );
    for (const id of reportIds) {
      const row = find.get(id) as [string, string | null] | undefined;
      if (row) reports.set(id, { hash: row[0], deleted: row[1] !== null });
    }
    return { generation, plans: { known: known.build(), unlisted, rejected }, reports };
  })();
}
