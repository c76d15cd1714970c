/** History of a versioned entity (plans, reports): one row per content, valid_from..valid_to. */
import type BetterSqlite3 from "better-sqlite3";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import type { planVersions, reportVersions } from "../schema/index.js";
import type { Sqlite } from "./db.js";
import { inserter } from "./statements.js";

export class VersionLog {
  readonly #insert: ReturnType<typeof inserter<typeof planVersions>>;
  readonly #close: BetterSqlite3.Statement<unknown[]>;

  constructor(sqlite: Sqlite, table: typeof planVersions | typeof reportVersions) {
    this.#insert = inserter(sqlite, table as typeof planVersions);
    const { name } = getTableConfig(table);
    this.#close = sqlite.prepare(`UPDATE "${name}" SET valid_to = ? WHERE id = ? AND valid_to IS NULL`);
  }

  /** Close the open version of `id` (if any) and open a new one. */
  open(id: number, contentHash: string, rawJson: string, at: string, runId: number): void {
    this.#close.run(at, id);
    this.#insert({ id, contentHash, rawJson, validFrom: at, validTo: null, runId });
  }

  /** The record is gone: its last version ends now. */
  close(id: number, at: string): void {
    this.#close.run(at, id);
  }
}
