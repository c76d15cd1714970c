/**
 * drizzle on a pool or one of its clients. drizzle's node-postgres driver sends type parsers
 * of its own with each query (timestamps as PostgreSQL prints them); they are dropped here, so
 * the connection's own parsers apply (pool.ts: ISO text as on SQLite, int8 as numbers).
 */
import { DrizzleQueryError, type SQL, sql } from "drizzle-orm";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type { QueryConfig } from "pg";
import { type Renderable, render } from "../rendered.js";
import type { Db } from "./pool.js";

type Orm = NodePgDatabase<Record<string, never>>;
const cache = new WeakMap<Db, Orm>();

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

/** Renders queries only: it is never asked to run one. */
const offline = drizzle({ client: {} as never }) as Orm;

/**
 * The builder's SQL for a query, run by the driver itself as a named prepared statement (parsed
 * once per connection), its rows as arrays zipped with `fields`. For a create job's statements:
 * `npm run bench:outbox` measured drizzle's own execution of them at +18% to +39% (over runs) over
 * the same SQL run this way. The statement still comes from the builder, its conditions from the state machine.
 */
export function statement<R extends Record<string, unknown> = Record<string, never>>(
  name: string,
  build: (o: Orm) => Renderable,
  fields: readonly (keyof R & string)[] = [],
): (db: Db, values?: Record<string, unknown>) => Promise<R[]> {
  const { text, args } = render(build(offline));
  return async (db, values = {}) => {
    const result = await db.query<unknown[]>({
      name: `tas_${name}`,
      text,
      values: args(values),
      rowMode: "array",
    });
    return result.rows.map((row) => Object.fromEntries(fields.map((f, i) => [f, row[i]])) as R);
  };
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
