/**
 * Group commit: writes asked for during one event-loop turn are committed together, in one
 * transaction, when the turn ends; each caller's promise settles once its write is committed
 * (or has failed). A commit costs several times the small writes a push job makes, and the
 * jobs of a busy worker finish in bunches, so they share one.
 *
 * Durability is that of a commit per write: a caller goes on (sends its request, acknowledges
 * its job) only once its write is committed (in WAL mode with synchronous NORMAL, safe from a
 * crash of the process). It just waits for the rest of the current turn.
 */
import type { Sqlite } from "./connection.js";

interface Pending {
  write: () => unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export class GroupCommit {
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(private readonly sqlite: Sqlite) {}

  /**
   * Runs `write` in the turn's shared transaction; resolves with its result once committed.
   * When another write of the turn throws, `write` runs again (after a rollback): it must
   * have no effect outside the database.
   */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    let results: Result[];
    try {
      try {
        results = this.#commit(batch, false);
      } catch (err) {
        if (!(err instanceof WriteFailed)) throw err;
        // A write threw, and the whole batch was rolled back. Run it again with each write
        // in a savepoint of its own, so that only the failing one fails. (Savepoints for
        // every write cost a few percent of a push; a failing write is rare.)
        results = this.#commit(batch, true);
      }
    } catch (err) {
      // The commit itself failed (the write lock stayed taken, the disk is full): none of the
      // batch is on disk, and every caller hears so.
      for (const item of batch) item.reject(err);
      return;
    }
    for (const [i, item] of batch.entries()) {
      const result = results[i] as Result;
      if (result.ok) item.resolve(result.value);
      else item.reject(result.value);
    }
  }

  #commit(batch: Pending[], isolated: boolean): Result[] {
    const run = (item: Pending): Result => {
      if (!isolated) {
        try {
          return { ok: true, value: item.write() };
        } catch (err) {
          throw new WriteFailed(err);
        }
      }
      try {
        return { ok: true, value: this.sqlite.transaction(item.write)() };
      } catch (err) {
        // Some errors (a full disk, an I/O error) make SQLite roll back the whole transaction,
        // not just the savepoint: the writes after this one would each commit on their own,
        // and the batch's COMMIT fail. Abort the batch: nothing of it is on disk.
        if (!this.sqlite.inTransaction) throw err;
        return { ok: false, value: err };
      }
    };
    return this.sqlite.transaction(() => batch.map(run)).immediate();
  }
}

interface Result {
  ok: boolean;
  value: unknown;
}

class WriteFailed extends Error {
  constructor(readonly error: unknown) {
    super("a write of the group failed");
  }
}
