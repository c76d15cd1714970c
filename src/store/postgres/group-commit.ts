/**
 * Group commit on PostgreSQL: writes asked for while no commit is running (one event-loop turn,
 * or the time the previous commit took) run in order, in one transaction on one connection of
 * the pool, and each caller's promise settles once that transaction is committed. A push
 * worker's jobs finish in bunches; they share a commit and its round trips.
 *
 * One commit at a time: a write issued after another one is committed after it, as on SQLite.
 * When a write fails, the batch runs again with each write in a savepoint of its own, so only
 * the failing one fails; a deadlock or serialization failure runs the whole batch again.
 */
import type { Pool, PoolClient } from "./pool.js";
import { isConnectionError, isRetryable } from "./tx.js";

type Write = (client: PoolClient) => Promise<unknown>;

interface Pending {
  write: Write;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

interface Result {
  ok: boolean;
  value: unknown;
}

const RETRIES = 5;

export class PgGroupCommit {
  #pending: Pending[] = [];
  #scheduled = false;
  #running: Promise<void> | null = null;

  constructor(private readonly pool: Pool) {}

  /**
   * Runs `write` in a shared transaction; resolves with its result once committed. `write` may
   * run more than once (after a rollback): it must have no effect outside the database.
   */
  run<T>(write: (client: PoolClient) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Resolves once every write asked for so far is committed or failed. */
  async idle(): Promise<void> {
    while (this.#running || this.#scheduled) await (this.#running ?? new Promise((r) => setImmediate(r)));
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#running = this.#flush().finally(() => {
        this.#running = null;
        if (this.#pending.length) this.#schedule();
      });
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    let results: Result[] | undefined;
    let isolated = false;
    for (let attempt = 0; results === undefined; attempt++) {
      try {
        results = await this.#commit(batch, isolated);
      } catch (err) {
        if (err instanceof WriteFailed && !isolated) {
          isolated = true;
          continue;
        }
        const cause = err instanceof WriteFailed ? err.error : err;
        if (isRetryable(cause) && attempt < RETRIES) continue;
        // The commit itself failed: none of the batch is in the database, every caller hears so.
        for (const item of batch) item.reject(cause);
        return;
      }
    }
    for (const [i, item] of batch.entries()) {
      const result = results[i] as Result;
      if (result.ok) item.resolve(result.value);
      else item.reject(result.value);
    }
  }

  async #commit(batch: Pending[], isolated: boolean): Promise<Result[]> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      try {
        const results: Result[] = [];
        for (const item of batch) results.push(await this.#one(client, item, isolated));
        await client.query("COMMIT");
        return results;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw err;
      }
    } catch (err) {
      broken ||= isConnectionError(err instanceof WriteFailed ? err.error : err);
      throw err;
    } finally {
      client.release(broken);
    }
  }

  async #one(client: PoolClient, item: Pending, isolated: boolean): Promise<Result> {
    if (!isolated) {
      try {
        return { ok: true, value: await item.write(client) };
      } catch (err) {
        throw new WriteFailed(err);
      }
    }
    await client.query("SAVEPOINT w");
    try {
      const value = await item.write(client);
      await client.query("RELEASE SAVEPOINT w");
      return { ok: true, value };
    } catch (err) {
      // A deadlock or a lost connection is the batch's, not this write's: retry or fail it whole.
      if (isRetryable(err) || isConnectionError(err)) throw new WriteFailed(err);
      await client.query("ROLLBACK TO SAVEPOINT w");
      return { ok: false, value: err };
    }
  }
}

class WriteFailed extends Error {
  constructor(readonly error: unknown) {
    super("a write of the group failed");
  }
}
