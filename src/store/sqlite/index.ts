/** The SQLite store: one file, one connection per Store, migrations applied on open. */
import type { Store } from "../port.js";
import { readStored } from "../stored-records.js";
import { DEFAULT_BUSY_TIMEOUT_MS, isBusy, openConnection, type Sqlite } from "./connection.js";
import { appliedMigrations, migrateSqlite } from "./migrate.js";
import { sqliteOutbox } from "./outbox/index.js";
import { prepared } from "./prepared.js";
import { readOnlyQuery } from "./query.js";
import { sqliteRetention } from "./retention.js";
import { sqliteRuns } from "./runs/index.js";
import { sqliteSchema } from "./schema/index.js";
import { applySnapshot } from "./snapshot/apply.js";
import { loadIndex } from "./snapshot/index-load.js";

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

/**
 * Opens the file and applies pending migrations. Processes opening a new database at the same
 * instant can meet SQLITE_BUSY without SQLite asking the busy handler (the switch to WAL, a
 * read snapshot that another opener's migration made stale); seen under heavy load. Such an
 * open is tried again, from the start, for as long as the busy timeout.
 */
function openAndMigrate(path: string, opts: SqliteOptions): Sqlite {
  const busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const deadline = Date.now() + busyTimeoutMs;
  for (let attempt = 1; ; attempt++) {
    let sqlite: Sqlite | undefined;
    try {
      sqlite = openConnection(path, { busyTimeoutMs, ...(opts.readonly ? { readonly: true } : {}) });
      if (opts.migrate !== false && !opts.readonly) migrateSqlite(sqlite);
      return sqlite;
    } catch (err) {
      sqlite?.close();
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      // Synchronous like the rest of the open: a short, growing pause before the next try.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(250, 20 * attempt));
    }
  }
}

export function openSqliteStore(path: string, opts: SqliteOptions = {}): SqliteStore {
  const sqlite = openAndMigrate(path, opts);
  return {
    dialect: "sqlite",
    display: path,
    path,
    sqlite,
    runs: sqliteRuns(sqlite),
    snapshots: {
      index: async (companyId, reportIds) => loadIndex(sqlite, companyId, reportIds),
      stored: (companyId, which, visit) =>
        readStored(
          async (sql, params) => prepared(sqlite, sql).all(params) as never,
          { idsIn: "AND id IN (SELECT value FROM json_each(:ids))", toIds: (ids) => JSON.stringify(ids) },
          companyId,
          which,
          visit,
        ),
      // Synchronous from BEGIN to COMMIT: a signal cannot interrupt it, and need not.
      apply: async (meta, ops) => applySnapshot(sqlite, meta, ops),
    },
    outbox: sqliteOutbox(sqlite),
    schema: sqliteSchema(sqlite),
    retention: sqliteRetention(sqlite),
    sql: {
      query: (sql, opts) => readOnlyQuery(path, sql, opts),
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
