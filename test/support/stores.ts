/**
 * The stores the integration suite runs against, parameterized (not copied): SQLite in a temp
 * file, and PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1:5432/postgres; .ci/run
 * makes sure it answers), each `fresh()` a database of its own, dropped by `cleanup()`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseTarget } from "../../src/config/index.js";
import type { Store } from "../../src/store/port.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { numberedParams, sqliteLike, TestDatabases } from "./postgres.js";

export interface StoreKind {
  name: "sqlite" | "postgres";
  /** A `database` config value for a fresh, empty database of this kind. */
  fresh(): Promise<string>;
  open(database: string): Promise<Store>;
  /** Rows of a SQL query written with `?` placeholders; booleans come back as 0/1. */
  rows<T = Record<string, unknown>>(store: Store, sql: string, ...params: unknown[]): Promise<T[]>;
  /** Drops what `fresh` made. */
  cleanup(): Promise<void>;
}

function sqliteKind(): StoreKind {
  const dirs: string[] = [];
  let n = 0;
  return {
    name: "sqlite",
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), "tas-store-"));
      dirs.push(dir);
      return join(dir, `t${n++}.db`);
    },
    async open(database) {
      return openSqliteStore(database);
    },
    async rows<T>(store: Store, sql: string, ...params: unknown[]) {
      return (store as SqliteStore).sqlite.prepare(sql).all(...params) as T[];
    },
    async cleanup() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

function postgresKind(): StoreKind {
  const databases = new TestDatabases();
  return {
    name: "postgres",
    fresh: () => databases.create(),
    async open(database) {
      const target = databaseTarget(database);
      if (target.dialect !== "postgres") throw new Error("not a postgres URL");
      return openPostgresStore(target);
    },
    async rows<T>(store: Store, sql: string, ...params: unknown[]) {
      const { rows } = await (store as PostgresStore).pool.query(numberedParams(sql), params);
      return rows.map((r) => sqliteLike<T>(r));
    },
    cleanup: () => databases.dropAll(),
  };
}

/** The kinds to run a suite against. */
export function storeKinds(): StoreKind[] {
  return [sqliteKind(), postgresKind()];
}
