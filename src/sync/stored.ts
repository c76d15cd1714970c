/**
 * A company's stored records, page by page, as a snapshot's operations read them: each page is
 * asked of the store with a `stored` operation (the store answers through the generator).
 */
import type { SnapshotOp, StoredKey, StoredRecord } from "../store/port-snapshot.js";

const PAGE = 2000;

/** Visits every stored record of `of`, yielding what `visit` returns for it (when anything). */
export function* eachStored(
  of: "replaced" | "live" | "rejected",
  visit: (r: StoredRecord) => SnapshotOp | null,
): Generator<SnapshotOp, void, StoredRecord[] | undefined> {
  for (let after: StoredKey | null = null; ; ) {
    const page: StoredRecord[] = (yield { op: "stored", of, after, limit: PAGE }) ?? [];
    for (const r of page) {
      const op = visit(r);
      if (op) yield op;
    }
    if (page.length < PAGE) return;
    after = page.at(-1) ?? null;
  }
}
