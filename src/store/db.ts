/** Open the SQLite file, set pragmas, and apply the committed drizzle migrations. */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { type DatabaseTarget, databaseTarget } from "../config/index.js";
import * as schema from "../schema/index.js";

export type Sqlite = Database.Database;
export type Db = BetterSQLite3Database<typeof schema>;

export interface Store {
  path: string;
  sqlite: Sqlite;
  db: Db;
  close(): void;
}

export class StoreError extends Error {
  override name = "StoreError";
}

/** The migrations/ folder of this package, from src/ (tests) or dist/src/ (built). */
export function migrationsFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, "migrations", "meta", "_journal.json"))) return join(dir, "migrations");
    dir = dirname(dir);
  }
  throw new StoreError("cannot find the migrations/ folder of tas-sync");
}

export interface OpenOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** How long a writer waits for another process's transaction, ms. */
  busyTimeoutMs?: number;
}

export function openStore(target: DatabaseTarget | string, opts: OpenOptions = {}): Store {
  const resolved = typeof target === "string" ? databaseTarget(target) : target;
  if (resolved.dialect !== "sqlite")
    throw new StoreError(`${resolved.display}: PostgreSQL is not supported by this build`);
  const path = resolved.path;
  let sqlite: Sqlite;
  try {
    sqlite = new Database(path);
  } catch (err) {
    throw new StoreError(`cannot open database ${path}: ${(err as Error).message}`);
  }
  // WAL: readers keep reading the last committed snapshot while a sync writes.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 60_000}`);
  // 64 MiB of page cache: a 100k-plan snapshot otherwise spills the default 2 MiB constantly.
  sqlite.pragma("cache_size = -65536");
  const db = drizzle(sqlite, { schema });
  if (opts.migrate !== false) migrateStore(db);
  return { path, sqlite, db, close: () => sqlite.close() };
}

export function migrateStore(db: Db): void {
  migrate(db, { migrationsFolder: migrationsFolder() });
}
