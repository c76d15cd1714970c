/** Opening the SQLite file with the pragmas every connection of tas-sync uses. */
import Database from "better-sqlite3";
import { StoreError } from "../errors.js";

export type Sqlite = Database.Database;

export interface ConnectionOptions {
  /** How long a writer waits for another process's transaction, ms. */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/** How long a writer waits for another process's transaction unless told otherwise. */
export const DEFAULT_BUSY_TIMEOUT_MS = 60_000;

/** SQLITE_BUSY and its extended codes (BUSY_SNAPSHOT, BUSY_RECOVERY). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

export function openConnection(path: string, opts: ConnectionOptions = {}): Sqlite {
  let sqlite: Sqlite;
  try {
    sqlite = new Database(path, opts.readonly ? { readonly: true, fileMustExist: true } : {});
  } catch (err) {
    const hint = opts.readonly ? " (does it exist? run tas-sync sync first)" : "";
    throw new StoreError(`cannot open database ${path}: ${(err as Error).message}${hint}`);
  }
  try {
    // First: every later statement (journal mode, migrations) then waits for other openers.
    sqlite.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS}`);
    if (opts.readonly) return sqlite;
    // WAL: readers keep reading the last committed snapshot while a sync writes.
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("synchronous = NORMAL");
    // 8 MiB of page cache: a 100k-plan snapshot spills the default 2 MiB constantly; 32 MiB
    // and 256 MiB wrote as fast and the same bytes, 32 MiB held 10-25 MB more RSS for good.
    sqlite.pragma("cache_size = -8192");
    return sqlite;
  } catch (err) {
    sqlite.close();
    throw err;
  }
}
