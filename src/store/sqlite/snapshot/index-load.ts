/** What the database holds for a company when its snapshot's transaction begins. */
import type { KnownRecord, SnapshotIndex } from "../../port-snapshot.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";

export function loadIndex(sqlite: Sqlite, companyId: number, reportIds: readonly number[]): SnapshotIndex {
  const byHash = new Map<string, number>();
  const byId = new Map<number, KnownRecord>();
  const rows = sqlite
    .prepare("SELECT id, content_hash, deleted_at FROM plans WHERE company_id = ?")
    .raw()
    .iterate(companyId) as IterableIterator<[number, string, string | null]>;
  for (const [id, hash, deletedAt] of rows) {
    byHash.set(hash, id);
    byId.set(id, { hash, deleted: deletedAt !== null });
  }
  const reports = new Map<number, KnownRecord>();
  const find = prepared(
    sqlite,
    "SELECT content_hash AS hash, deleted_at AS deletedAt FROM scheduled_reports WHERE id = ?",
  );
  for (const id of reportIds) {
    const row = find.get(id) as { hash: string; deletedAt: string | null } | undefined;
    if (row) reports.set(id, { hash: row.hash, deleted: row.deletedAt !== null });
  }
  return { plans: { byHash, byId }, reports };
}
