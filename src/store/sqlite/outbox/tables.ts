/** The outbox's tables as the SQLite adapter's queries name them, and the connection's drizzle. */
import type Database from "better-sqlite3";
import { type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { PARENT } from "../../../tables/outbox-states.js";
import { scenarioRequests, scenarios } from "../../../tables/sqlite/index.js";
import { type Renderable, render } from "../../rendered.js";
import type { Sqlite } from "../connection.js";
import { orm } from "../orm.js";
import { perConnection } from "../prepared.js";

export const t = scenarioRequests;
/** The parent row, in joins and in the ready condition's subquery. */
export const p = alias(scenarioRequests, PARENT);
export { orm, scenarios };

/** A query built once per connection (drizzle's prepare: SQL and statement made once). */
export function once<T>(sqlite: Sqlite, name: string, build: (db: ReturnType<typeof orm>) => T): T {
  return perConnection(sqlite, `q:${name}`, () => build(orm(sqlite)));
}

/** Runs `fn` in a transaction of its own, or in the one already open (the group commit's). */
export function atomically<T>(sqlite: Sqlite, fn: () => T): T {
  return sqlite.inTransaction ? fn() : sqlite.transaction(fn)();
}

/** A placeholder where drizzle's types want a value (an UPDATE's SET): filled at run time. */
export const arg = (name: string): SQL => sql`${sql.placeholder(name)}`;

/**
 * The builder's SQL for a query, prepared and run by better-sqlite3 itself, its parameters by
 * name (../../rendered.ts): where drizzle's own execution costs, as for the INSERT of `record`
 * (`npm run bench:outbox`: drizzle +130% to +180% over runs; a 100,000-row seed file is 100,000
 * of them).
 */
export function rendered(
  sqlite: Sqlite,
  name: string,
  build: (db: ReturnType<typeof orm>) => Renderable,
): {
  run(values: Record<string, unknown>): Database.RunResult;
  /** The first column of every row (a RETURNING key). */
  pluck<T>(values: Record<string, unknown>): T[];
} {
  return perConnection(sqlite, `rendered:${name}`, () => {
    const { text, args } = render(build(orm(sqlite)));
    const stmt = sqlite.prepare(text);
    const plucked = stmt.reader ? sqlite.prepare(text).pluck() : null;
    return {
      run: (values) => stmt.run(args(values)),
      pluck: <T>(values: Record<string, unknown>) => (plucked?.all(args(values)) ?? []) as T[],
    };
  });
}
