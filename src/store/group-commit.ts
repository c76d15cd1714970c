/**
 * Group commit: writes asked for during one event-loop turn are committed together, in one
 * transaction, when the turn ends; each caller's promise settles once its write is committed
 * (or has failed). A commit costs several times the small writes a push job makes, and the
 * jobs of a busy worker finish in bunches, so they share one.
 *
 * Durability is that of a commit per write: a caller goes on (sends its request, acknowledges
 * its job) only once its write is on disk. It just waits for the rest of the current turn.
 */
import type { Sqlite } from "./db.js";

interface Pending {
  write: () => unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export class GroupCommit {
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(private readonly sqlite: Sqlite) {}

  /** Runs `write` in the turn's shared transaction; resolves with its result once committed. */
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
    const results: { ok: boolean; value: unknown }[] = [];
    try {
      this.sqlite
        .transaction(() => {
          for (const item of batch) {
            // Each write in a savepoint of its own: one that throws is undone alone, fails alone.
            try {
              results.push({ ok: true, value: this.sqlite.transaction(item.write)() });
            } catch (err) {
              results.push({ ok: false, value: err });
            }
          }
        })
        .immediate();
    } catch (err) {
      // The commit itself failed (the write lock stayed taken, the disk is full): none of the
      // batch is on disk, and every caller hears so.
      for (const item of batch) item.reject(err);
      return;
    }
    for (const [i, item] of batch.entries()) {
      const result = results[i] as { ok: boolean; value: unknown };
      if (result.ok) item.resolve(result.value);
      else item.reject(result.value);
    }
  }
}
