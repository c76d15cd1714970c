/**
 * The stores the integration suite runs against, parameterized (not copied): SQLite in a temp
 * file, and PostgreSQL at PG_URL (default postgres://postgres@127.0.0.1:5432/postgres; .ci/run
 * makes sure it answers), each `fresh()` a database of its own, dropped by `cleanup()`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databaseTarget } from "../../src/config/index.js";
import type { Dialect, Store } from "../../src/store/port.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { numberedParams, sqliteLike, TestDatabases } from "./postgres.js";

export interface StoreKind {
  name: "sqlite" | "postgres";
  /**
   * A `database` config value for a fresh database of this kind, holding no rows. With
   * `migrated` its schema may already be in place: PostgreSQL then copies a template migrated
   * once per kind (migrating costs ~0.5 s a database); without it, the first open migrates.
   */
  fresh(opts?: { migrated?: boolean }): Promise<string>;
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
  let template: Promise<string> | null = null;
  const open = async (database: string) => {
    const target = databaseTarget(database);
    if (target.dialect !== "postgres") throw new Error("not a postgres URL");
    return openPostgresStore(target);
  };
  return {
    name: "postgres",
    async fresh(opts = {}) {
      if (!opts.migrated) return databases.create();
      template ??= databases.create().then(async (url) => {
        await (await open(url)).close();
        return url;
      });
      return databases.create({ template: await template });
    },
    open,
    async rows<T>(store: Store, sql: string, ...params: unknown[]) {
      const { rows } = await (store as PostgresStore).pool.query(numberedParams(sql), params);
      return rows.map((r) => sqliteLike<T>(r));
    },
    async cleanup() {
      template = null;
      await databases.dropAll();
    },
  };
}

/** The kinds to run a suite against. */
export function storeKinds(): StoreKind[] {
  return [sqliteKind(), postgresKind()];
}

/** One kind, for a suite whose subject does not depend on the store (the report says why). */
export function storeKind(name: StoreKind["name"]): StoreKind {
  return name === "sqlite" ? sqliteKind() : postgresKind();
}

/** SQL checks on one store, written once for both dialects. */
export interface Sql {
  readonly dialect: Dialect;
  /** Rows of a query with `?` placeholders; booleans as 0/1, timestamps as ISO text. */
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** The first column of the first row; undefined when there is no row. */
  scalar<T = number>(sql: string, ...params: unknown[]): Promise<T>;
}

export function sqlOn(kind: StoreKind, store: Store): Sql {
  return {
    dialect: store.dialect,
    rows: (sql, ...params) => kind.rows(store, sql, ...params),
    async scalar<T>(sql: string, ...params: unknown[]) {
      const [first] = await kind.rows<Record<string, unknown>>(store, sql, ...params);
      return (first === undefined ? undefined : Object.values(first)[0]) as T;
    },
  };
}

/**
 * An expression that changes whenever a row is written (inserted again or updated): SQLite's
 * rowid grows on every insert; PostgreSQL stamps each row version with its transaction (xmin).
 */
export function rowStamp(dialect: Dialect): string {
  return dialect === "sqlite" ? "rowid" : "xmin::text::bigint";
}

/** Makes the first `n` inserts into `table` fail, as a full disk would; counts the inserts tried. */
export async function failInserts(
  store: Store,
  table: string,
  n: number,
): Promise<{ tried(): Promise<number> }> {
  if (store.dialect === "sqlite") {
    const { sqlite } = store as SqliteStore;
    let tried = 0;
    sqlite.function("test_fail_insert", () => (++tried <= n ? 1 : 0));
    sqlite.exec(
      `CREATE TEMP TRIGGER test_fail_insert BEFORE INSERT ON ${table} WHEN test_fail_insert() = 1
       BEGIN SELECT RAISE(ABORT, 'simulated disk full'); END`,
    );
    return { tried: async () => tried };
  }
  const { pool } = store as PostgresStore;
  // A sequence counts: nextval is not rolled back with the failing statement's transaction.
  await pool.query(`
    CREATE SEQUENCE test_fail_insert_seq;
    CREATE FUNCTION test_fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('test_fail_insert_seq') <= ${Number(n)} THEN RAISE EXCEPTION 'simulated disk full'; END IF;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_fail_insert BEFORE INSERT ON ${table}
      FOR EACH ROW EXECUTE FUNCTION test_fail_insert();`);
  return {
    async tried() {
      const { rows } = await pool.query<{ n: string }>(
        "SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM test_fail_insert_seq",
      );
      return Number(rows[0]?.n);
    },
  };
}
