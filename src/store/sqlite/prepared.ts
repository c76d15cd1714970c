/**
 * Prepared statements (and other per-connection helpers) built once per connection. A push job
 * makes several outbox calls; preparing their SQL every time cost more than running it.
 */
import type Database from "better-sqlite3";
import type { Sqlite } from "./connection.js";

const cache = new WeakMap<Sqlite, Map<string, unknown>>();

/** The value built by `build` for this connection and `key`, built on first use. */
export function perConnection<T>(sqlite: Sqlite, key: string, build: () => T): T {
  let entries = cache.get(sqlite);
  if (!entries) {
    entries = new Map();
    cache.set(sqlite, entries);
  }
  if (!entries.has(key)) entries.set(key, build());
  return entries.get(key) as T;
}

/** The connection's prepared statement for `sql`. */
export function prepared(sqlite: Sqlite, sql: string): Database.Statement {
  return perConnection(sqlite, `stmt:${sql}`, () => sqlite.prepare(sql));
}

/** The connection's prepared statement for `sql`, returning the first column only. */
export function plucked(sqlite: Sqlite, sql: string): Database.Statement {
  return perConnection(sqlite, `pluck:${sql}`, () => sqlite.prepare(sql).pluck());
}
