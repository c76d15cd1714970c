/**
 * Applies the committed drizzle migrations (migrations/postgres) under a session advisory lock,
 * so that processes opening a new database at once take turns: the first applies them, the
 * others find them applied. All pending migrations go in one transaction. The bookkeeping
 * (schema "drizzle", table "__drizzle_migrations") is drizzle's, so `drizzle-kit migrate` and
 * this agree on what is applied.
 */
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrationsFolder } from "../migrations-folder.js";
import type { Db, Pool } from "./pool.js";

const TABLE = `"drizzle"."__drizzle_migrations"`;
/** The lock's key: "tas-sync" in ASCII, far above any company id (those key the apply lock). */
const MIGRATION_LOCK = "8386095523001004643";

/** Returns how many migrations this call applied. */
export async function migratePostgres(pool: Pool): Promise<number> {
  const migrations = readMigrationFiles({ migrationsFolder: migrationsFolder("postgres") });
  const client = await pool.connect();
  let broken = false;
  try {
    // A database that is up to date needs no lock.
    if ((await pending(client, migrations)).length === 0) return 0;
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      await client.query("BEGIN");
      try {
        await client.query("CREATE SCHEMA IF NOT EXISTS drizzle");
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`,
        );
        const todo = await pending(client, migrations);
        for (const m of todo) {
          for (const statement of m.sql) if (statement.trim()) await client.query(statement);
          await client.query(`INSERT INTO ${TABLE} ("hash", "created_at") VALUES ($1, $2)`, [
            m.hash,
            m.folderMillis,
          ]);
        }
        await client.query("COMMIT");
        return todo.length;
      } catch (err) {
        await client.query("ROLLBACK");
        throw err;
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } catch (err) {
    broken = true; // the session may still hold the lock: do not reuse it
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Migrations newer than the last applied one. */
async function pending<M extends { folderMillis: number }>(db: Db, migrations: M[]): Promise<M[]> {
  const exists = await db.query("SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS e");
  if (!exists.rows[0]?.e) return migrations;
  const last = await db.query(`SELECT created_at FROM ${TABLE} ORDER BY created_at DESC LIMIT 1`);
  const at = last.rows[0]?.created_at as number | undefined;
  return at === undefined ? migrations : migrations.filter((m) => Number(at) < m.folderMillis);
}

export async function appliedMigrations(db: Db): Promise<number> {
  const exists = await db.query("SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS e");
  if (!exists.rows[0]?.e) return 0;
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM ${TABLE}`);
  return rows[0]?.n as number;
}
