/** Opens the store a `database` value names: SQLite (a path) or PostgreSQL (a postgres:// URL). */
import { type DatabaseTarget, databaseTarget } from "../config/index.js";
import type { OpenOptions, Store } from "./port.js";

export type { OpenOptions, Store };

export async function openStore(target: DatabaseTarget | string, opts: OpenOptions = {}): Promise<Store> {
  const t = typeof target === "string" ? databaseTarget(target) : target;
  if (t.dialect === "sqlite") {
    // Loaded on demand: a PostgreSQL deployment never loads the SQLite driver, and vice versa.
    const { openSqliteStore } = await import("./sqlite/index.js");
    return openSqliteStore(t.path, opts);
  }
  const { openPostgresStore } = await import("./postgres/index.js");
  return openPostgresStore(t, opts);
}
