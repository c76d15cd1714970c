/**
 * Column helpers of the PostgreSQL schema. TypeScript types stay those of the SQLite schema
 * (timestamps as ISO strings, ids as numbers), so the neutral row types fit both dialects.
 */
import { bigint, timestamp } from "drizzle-orm/pg-core";

/** An id given by the service (plans, reports, scenarios, companies, projects) or a run id. */
export const id = (name: string) => bigint(name, { mode: "number" });

/** A moment; read back as ISO 8601 UTC with milliseconds by the store's type parser. */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "string", precision: 3 });

/** A generated key (run ids, history and log rows): 64-bit, never reused. */
export const serialId = (name: string) => id(name).primaryKey().generatedByDefaultAsIdentity();

/**
 * A number the service gives (a limit, a count, a size): 64-bit, as SQLite's integer, so that
 * an odd value from the service is stored rather than failing the company's whole snapshot.
 * `integer` is kept for numbers tas-sync makes itself (positions, attempts, counts, pids).
 */
export const num = (name: string) => bigint(name, { mode: "number" });
