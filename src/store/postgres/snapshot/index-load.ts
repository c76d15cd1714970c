/** What the database holds for a company, read in one read-only snapshot (no lock taken). */
import { PlanIndexBuilder } from "../../plan-index.js";
import type { KnownRecord, SnapshotIndex } from "../../port-snapshot.js";
import type { Pool } from "../pool.js";

export async function loadIndex(
  pool: Pool,
  companyId: number,
  reportIds: readonly number[],
): Promise<SnapshotIndex> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      const state = await client.query<[number]>({
        text: "SELECT write_generation FROM sync_state WHERE company_id = $1",
        values: [companyId],
        rowMode: "array",
      });
      const known = new PlanIndexBuilder();
      // Arrays, not objects: 100,000 plans make 100,000 rows here. An index-only scan of
      // plans_company_index_idx once the table is vacuumed: the wide rows are not read.
      const plans = await client.query<[number, string, boolean]>({
        text: "SELECT id, content_hash, deleted_at IS NOT NULL FROM plans WHERE company_id = $1",
        values: [companyId],
        rowMode: "array",
      });
      for (const [id, hash, deleted] of plans.rows) known.add(id, hash, deleted);
      const unlisted = new Set(
        (
          await client.query<[string]>({
            text: "SELECT plan_id FROM unlisted_plans WHERE company_id = $1",
            values: [companyId],
            rowMode: "array",
          })
        ).rows.map(([id]) => Number(id)),
      );
      const rejected = new Set(
        (
          await client.query<[string]>({
            text: "SELECT content_hash FROM v_rejected_now WHERE company_id = $1 AND entity = 'plan'",
            values: [companyId],
            rowMode: "array",
          })
        ).rows.map(([h]) => h),
      );
      const reports = new Map<number, KnownRecord>();
      if (reportIds.length) {
        const found = await client.query<[number, string, boolean]>({
          text: "SELECT id, content_hash, deleted_at IS NOT NULL FROM scheduled_reports WHERE id = ANY($1::bigint[])",
          values: [reportIds],
          rowMode: "array",
        });
        for (const [id, hash, deleted] of found.rows) reports.set(id, { hash, deleted });
      }
      await client.query("COMMIT");
      return {
        generation: Number(state.rows[0]?.[0] ?? 0),
        plans: { known: known.build(), unlisted, rejected },
        reports,
      };
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
