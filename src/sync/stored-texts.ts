/**
 * Stored JSON texts that a snapshot needs (the contents it may replace, a replay's records),
 * read from the store before its transaction opens and kept in a spool file until the
 * snapshot's operations reach them: the store is asked nothing while it writes.
 */
import type { SnapshotStore, StoredRecord, StoredSelection } from "../store/port-snapshot.js";
import { Spool } from "./spool.js";

export class StoredTexts {
  readonly #keys: Omit<StoredRecord, "rawJson">[] = [];
  #spool: Spool | null = null;

  /** Reads the selected texts of the company (none at all when `which` selects no id). */
  static async read(
    store: Pick<SnapshotStore, "stored">,
    companyId: number,
    which: StoredSelection,
  ): Promise<StoredTexts> {
    const texts = new StoredTexts();
    if (typeof which === "object" && which.plans.length + which.reports.length === 0) return texts;
    try {
      await store.stored(companyId, which, (r) => {
        texts.#spool ??= new Spool();
        texts.#spool.append(Buffer.from(r.rawJson));
        texts.#keys.push({ entity: r.entity, id: r.id });
      });
    } catch (err) {
      texts.dispose();
      throw err;
    }
    return texts;
  }

  get count(): number {
    return this.#keys.length;
  }

  /** Every text, in the order read (synchronous reads of the spool file). */
  *records(): Generator<StoredRecord> {
    if (!this.#spool) return;
    let k = 0;
    for (const bytes of this.#spool.records()) {
      const key = this.#keys[k++];
      if (!key) return;
      yield { ...key, rawJson: bytes.toString("utf8") };
    }
  }

  /** Deletes the spool file, if any. */
  dispose(): void {
    this.#spool?.dispose();
    this.#spool = null;
  }
}
