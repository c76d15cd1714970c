/**
 * drizzle on a pool or one of its clients. drizzle's node-postgres driver sends type parsers
 * of its own with each query (timestamps as PostgreSQL prints them); they are dropped here, so
 * the connection's own parsers apply (pool.ts: ISO text as on SQLite, int8 as numbers).
 */
import { DrizzleQueryError, type SQL, sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type { QueryConfig } from "pg";
import type { Db } from "./pool.js";

type Orm = NodePgDatabase<Record<string, never>>;
const cache = new WeakMap<Db, Orm>();
const prepared = new WeakMap<Db, Map<string, unknown>>();

export function orm(db: Db): Orm {
  let o = cache.get(db);
  if (!o) {
    const client = {
      query: (config: string | QueryConfig, values?: unknown[]) =>
        db.query(typeof config === "string" ? config : { ...config, types: undefined }, values),
    };
    o = drizzle({ client: client as never });
    cache.set(db, o);
  }
  return o;
}

/**
 * A query built once per connection and prepared under `name` (PostgreSQL parses it once per
 * connection): a create job's statements. `npm run bench:outbox` finds drizzle's execution of
 * them as fast as the driver running the same SQL, so drizzle runs them.
 */
export function once<T>(db: Db, name: string, build: (o: Orm) => T): T {
  let byName = prepared.get(db);
  if (!byName) {
    byName = new Map();
    prepared.set(db, byName);
  }
  if (!byName.has(name)) byName.set(name, build(orm(db)));
  return byName.get(name) as T;
}

/**
 * The driver's own error instead of drizzle's wrapper ("Failed query: <SQL> params: <values>"):
 * the group commit and the transactions tell a deadlock or a lost connection by its code, and
 * a message should not carry the statement and its values.
 */
export async function unwrapped<T>(query: Promise<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    throw err instanceof DrizzleQueryError && err.cause ? err.cause : err;
  }
}

/** A placeholder where drizzle's types want a value (an UPDATE's SET): filled at run time. */
export const arg = (name: string): SQL => sql`${sql.placeholder(name)}`;
