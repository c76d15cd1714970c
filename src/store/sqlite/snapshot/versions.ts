/**
 * The history of versioned records (plans, reports): one version per content, valid_from ..
 * valid_to. A version's raw_json is NULL while its content is the record row's own (the text is
 * stored once); before the row's content is replaced, its text moves into those versions.
 */
import type BetterSqlite3 from "better-sqlite3";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import type { plans, planVersions, reportVersions, scheduledReports } from "../../../tables/sqlite/index.js";
import type { Sqlite } from "../connection.js";

type Statement = BetterSqlite3.Statement<unknown[]>;

export class VersionHistory {
  readonly #open: Statement;
  readonly #keepText: Statement;
  readonly #close: Statement;

  constructor(
    sqlite: Sqlite,
    records: typeof plans | typeof scheduledReports,
    versions: typeof planVersions | typeof reportVersions,
  ) {
    const table = getTableConfig(records).name;
    const history = getTableConfig(versions).name;
    this.#open = sqlite.prepare(
      `INSERT INTO "${history}" (id, content_hash, valid_from, valid_to, raw_json, run_id) VALUES (?, ?, ?, NULL, NULL, ?)`,
    );
    // Versions sharing the row's text get it, and the open one ends (never before it began:
    // a plan that moved from a company synced later).
    this.#keepText = sqlite.prepare(
      `UPDATE "${history}" SET raw_json = (SELECT raw_json FROM "${table}" WHERE id = @id),
         valid_to = CASE WHEN valid_to IS NULL THEN max(@at, valid_from) ELSE valid_to END
       WHERE id = @id AND raw_json IS NULL`,
    );
    this.#close = sqlite.prepare(
      `UPDATE "${history}" SET valid_to = max(?, valid_from) WHERE id = ? AND valid_to IS NULL`,
    );
  }

  /** A version begins with the row's content (the row holds its text). */
  open(id: number, contentHash: string, at: string, runId: number): void {
    this.#open.run(id, contentHash, at, runId);
  }

  /** The row's content is about to be replaced: its versions keep its text; the open one ends. */
  replace(id: number, at: string): void {
    this.#keepText.run({ id, at });
  }

  /** The record is gone: its open version ends (the row keeps the text). */
  close(id: number, at: string): void {
    this.#close.run(at, id);
  }
}
