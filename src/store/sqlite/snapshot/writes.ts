/**
 * What a snapshot's writers need of a connection, and no more: statements run for their effect,
 * a branch on whether the last one changed a row, and a set of values collected on the way. The
 * writers never read a result back, so the same writers serve the committing connection itself
 * (`localWrites`) and the writer thread, which runs them on a connection of its own while this
 * thread reads and decides (./remote.ts).
 */
import type { Sqlite } from "../connection.js";
import { plucked, prepared } from "../prepared.js";

/** A prepared statement run for its effect. */
export interface WriteStatement {
  run(...args: unknown[]): unknown;
}

export interface Writes {
  /** The statement for `sql`, prepared once. */
  prepare(sql: string): WriteStatement;
  /** Runs `then` when the statement run last changed a row (`changed`) or changed none (`!changed`). */
  when(changed: boolean, then: () => void): void;
  /** Runs `sql` (a query of one value) and keeps the value it gives among the collected ones. */
  collect(sql: string, ...args: unknown[]): void;
  /** Runs `sql` once with each collected value but `except`, each value once. */
  forEachCollected(sql: string, except: unknown): void;
}

/** The writes on the connection that runs the transaction itself. */
export function localWrites(sqlite: Sqlite): Writes {
  const collected = new Set<unknown>();
  return {
    prepare: (sql) => prepared(sqlite, sql),
    when: (changed, then) => {
      const n = plucked(sqlite, "SELECT changes()").get() as number;
      if (n > 0 === changed) then();
    },
    collect: (sql, ...args) => {
      collected.add(plucked(sqlite, sql).get(...args));
    },
    forEachCollected: (sql, except) => {
      const stmt = prepared(sqlite, sql);
      for (const v of collected) if (v !== except) stmt.run(v);
    },
  };
}
