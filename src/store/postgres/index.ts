/**
 * The PostgreSQL store: a pool per Store, migrations applied on open (under an advisory lock,
 * so many processes may open a new database at once), snapshots applied under the company's
 * advisory lock, outbox writes group-committed.
 */
import type { DatabaseTarget } from "../../config/index.js";
import { StoreError, StoreUnavailableError } from "../errors.js";
import type { OpenOptions, Store } from "../port.js";
import { numbered, readStored } from "../stored-records.js";
import { appliedMigrations, migratePostgres } from "./migrate.js";
import { postgresOutbox } from "./outbox/index.js";
import { createPool, type Pool } from "./pool.js";
import { readOnlyQuery } from "./query.js";
import { postgresRetention } from "./retention.js";
import { postgresRuns } from "./runs/index.js";
import { postgresSchema } from "./schema/index.js";
import { applySnapshot } from "./snapshot/apply.js";
import { loadIndex } from "./snapshot/index-load.js";
import { isUnreachable } from "./tx.js";

export type { Pool };

export interface PostgresStore extends Store {
  readonly dialect: "postgres";
  /** The pool itself, for tests and the benchmarks' SQL checks. */
  readonly pool: Pool;
}

export interface PostgresOptions extends OpenOptions {
  /** Connections of the pool (default 10). */
  poolSize?: number;
}

type PostgresTarget = Extract<DatabaseTarget, { dialect: "postgres" }>;

export async function openPostgresStore(
  target: PostgresTarget,
  opts: PostgresOptions = {},
): Promise<PostgresStore> {
  const pool = createPool(target.url, opts.poolSize === undefined ? {} : { max: opts.poolSize });
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    await pool.end().catch(() => {});
    const message = `cannot connect to ${target.display}: ${(err as Error).message}`;
    // A server that does not answer is not the config's to fix (a refused password is).
    if (isUnreachable(err)) throw new StoreUnavailableError(message);
    throw new StoreError(message);
  }
  try {
    if (opts.migrate !== false && !opts.readonly) await migratePostgres(pool);
  } catch (err) {
    await pool.end().catch(() => {});
    throw new StoreError(`cannot migrate ${target.display}: ${(err as Error).message}`);
  }
  let closed: Promise<void> | null = null;
  return {
    dialect: "postgres",
    display: target.display,
    pool,
    runs: postgresRuns(pool),
    snapshots: {
      index: (companyId, reportIds) => loadIndex(pool, companyId, reportIds),
      stored: (companyId, which, visit) =>
        readStored(
          async (sql, params) => {
            const { text, values } = numbered(sql, params);
            return (await pool.query<{ id: string; raw: string }>(text, values)).rows;
          },
          { idsIn: "AND id = ANY(CAST(:ids AS bigint[]))", toIds: (ids) => ids },
          companyId,
          which,
          visit,
        ),
      apply: (meta, ops, signal) => applySnapshot(pool, meta, ops, signal),
    },
    outbox: postgresOutbox(pool),
    schema: postgresSchema(pool),
    retention: postgresRetention(pool),
    sql: {
      query: (sql, opts) => readOnlyQuery(target.url, target.display, sql, opts),
      migrationCount: () => appliedMigrations(pool),
    },
    ping: async () => {
      await pool.query("SELECT 1");
    },
    close: () => {
      closed ??= pool.end();
      return closed;
    },
  };
}
