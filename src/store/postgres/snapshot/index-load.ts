/** What the database holds for a company when its snapshot's transaction begins. */
import type { KnownRecord, SnapshotIndex } from "../../port-snapshot.js";
import type { Db } from "../pool.js";

export async function loadIndex(
  db: Db,
  companyId: number,
  reportIds: readonly number[],
): Promise<SnapshotIndex> {
  const byHash = new Map<string, number>();
  const byId = new Map<number, KnownRecord>();
  // Arrays, not objects: 100,000 plans make 100,000 rows here.
  const plans = await db.query<[number, string, boolean]>({
    text: "SELECT id, content_hash, deleted_at IS NOT NULL FROM plans WHERE company_id = $1",
    values: [companyId],
    rowMode: "array",
  });
  for (const [id, hash, deleted] of plans.rows) {
    byHash.set(hash, id);
    byId.set(id, { hash, deleted });
  }
  const reports = new Map<number, KnownRecord>();
  if (reportIds.length) {
    const found = await db.query<[number, string, boolean]>({
      text: "SELECT id, content_hash, deleted_at IS NOT NULL FROM scheduled_reports WHERE id = ANY($1::bigint[])",
      values: [reportIds],
      rowMode: "array",
    });
    for (const [id, hash, deleted] of found.rows) reports.set(id, { hash, deleted });
  }
  return { plans: { byHash, byId }, reports };
}
