/**
 * Applies the committed drizzle migrations (migrations/sqlite) in ONE IMMEDIATE transaction,
 * the check of what is applied included. drizzle's own migrator reads the applied list before
 * its transaction, so processes opening a new database at once each tried to create every
 * table. The bookkeeping table and its rows are drizzle's, so either migrator sees the same state.
 */
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrationsFolder } from "../migrations-folder.js";
import type { Sqlite } from "./connection.js";

const TABLE = "__drizzle_migrations";

/** Returns how many migrations this call applied. */
export function migrateSqlite(sqlite: Sqlite): number {
  const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder("sqlite") });
  // A database that is up to date needs no write lock: check first, outside any transaction.
  if (pending(sqlite, migrations).length === 0) return 0;
  return sqlite
    .transaction(() => {
      sqlite.exec(
        `CREATE TABLE IF NOT EXISTS "${TABLE}" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`,
      );
      const todo = pending(sqlite, migrations);
      const insert = sqlite.prepare(`INSERT INTO "${TABLE}" ("hash", "created_at") VALUES (?, ?)`);
      for (const m of todo) {
        for (const statement of m.sql) if (statement.trim()) sqlite.exec(statement);
        insert.run(m.hash, m.folderMillis);
      }
      return todo.length;
    })
    .immediate();
}

/** Migrations newer than the last applied one. */
function pending<M extends { folderMillis: number }>(sqlite: Sqlite, migrations: M[]): M[] {
  const exists = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(TABLE);
  if (!exists) return migrations;
  const last = sqlite
    .prepare(`SELECT created_at FROM "${TABLE}" ORDER BY created_at DESC LIMIT 1`)
    .pluck()
    .get();
  return last === undefined ? migrations : migrations.filter((m) => Number(last) < m.folderMillis);
}

export function appliedMigrations(sqlite: Sqlite): number {
  return sqlite.prepare(`SELECT count(*) FROM "${TABLE}"`).pluck().get() as number;
}
