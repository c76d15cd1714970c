/** The SQLite store: one file, one connection per Store, migrations applied on open. */
import type { Store } from "../port.js";
import { openConnection, type Sqlite } from "./connection.js";
import { appliedMigrations, migrateSqlite } from "./migrate.js";
import { sqliteOutbox } from "./outbox/index.js";
import { readOnlyQuery } from "./query.js";
import { sqliteRuns } from "./runs/index.js";
import { applySnapshot } from "./snapshot/apply.js";

export type { Sqlite };

export interface SqliteStore extends Store {
  readonly dialect: "sqlite";
  /** The connection itself, for tests and the benchmarks' SQL checks. */
  readonly sqlite: Sqlite;
  readonly path: string;
}

export interface SqliteOptions {
  migrate?: boolean;
  readonly?: boolean;
  busyTimeoutMs?: number;
}

export function openSqliteStore(path: string, opts: SqliteOptions = {}): SqliteStore {
  const sqlite = openConnection(path, {
    ...(opts.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: opts.busyTimeoutMs }),
    ...(opts.readonly ? { readonly: true } : {}),
  });
  try {
    if (opts.migrate !== false && !opts.readonly) migrateSqlite(sqlite);
  } catch (err) {
    sqlite.close();
    throw err;
  }
  return {
    dialect: "sqlite",
    display: path,
    path,
    sqlite,
    runs: sqliteRuns(sqlite),
    snapshots: {
      // Synchronous from BEGIN to COMMIT: a signal cannot interrupt it, and need not.
      apply: async (meta, plan) => applySnapshot(sqlite, meta, plan),
    },
    outbox: sqliteOutbox(sqlite),
    sql: {
      query: async (sql) => readOnlyQuery(path, sql),
      migrationCount: async () => appliedMigrations(sqlite),
    },
    ping: async () => {
      sqlite.prepare("SELECT 1").get();
    },
    close: async () => {
      sqlite.close();
    },
  };
}
