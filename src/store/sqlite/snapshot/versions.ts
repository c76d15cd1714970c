/**
 * The life of a versioned record (a plan, a report): its row's `last_seen_at` and
 * `deleted_at`, and its history, one version per content, valid_from..valid_to.
 */
import type BetterSqlite3 from "better-sqlite3";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import type { plans, planVersions, reportVersions, scheduledReports } from "../../../schema/sqlite/index.js";
import type { Sqlite } from "../connection.js";
import { inserter } from "../statements.js";

type Statement = BetterSqlite3.Statement<unknown[]>;

export class VersionedTable {
  readonly #insertVersion: ReturnType<typeof inserter<typeof planVersions>>;
  readonly #closeVersion: Statement;
  readonly #touch: Statement;
  readonly #revive: Statement;
  readonly #markDeleted: Statement;

  constructor(
    sqlite: Sqlite,
    records: typeof plans | typeof scheduledReports,
    versions: typeof planVersions | typeof reportVersions,
  ) {
    const table = getTableConfig(records).name;
    this.#insertVersion = inserter(sqlite, versions as typeof planVersions);
    this.#closeVersion = sqlite.prepare(
      // Never before the version began (a plan that moved from a company synced later).
      `UPDATE "${getTableConfig(versions).name}" SET valid_to = max(?, valid_from) WHERE id = ? AND valid_to IS NULL`,
    );
    this.#touch = sqlite.prepare(`UPDATE "${table}" SET last_seen_at = ? WHERE id = ?`);
    this.#revive = sqlite.prepare(`UPDATE "${table}" SET deleted_at = NULL, last_seen_at = ? WHERE id = ?`);
    this.#markDeleted = sqlite.prepare(
      `UPDATE "${table}" SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`,
    );
  }

  /** New content: close the open version of `id` (if any) and open a new one. */
  open(id: number, contentHash: string, rawJson: string, at: string, runId: number): void {
    this.#closeVersion.run(at, id);
    this.#insertVersion({ id, contentHash, rawJson, validFrom: at, validTo: null, runId });
  }

  /** Seen again, same content. */
  touch(id: number, now: string): void {
    this.#touch.run(now, id);
  }

  /** A deleted record came back with the same content: undelete and start a new version. */
  revive(id: number, rawJson: string, contentHash: string, now: string, runId: number): void {
    this.#revive.run(now, id);
    this.open(id, contentHash, rawJson, now, runId);
  }

  /** The record is gone: mark it deleted and end its last version. Returns whether it was live. */
  markDeleted(id: number, now: string): boolean {
    if (this.#markDeleted.run(now, id).changes === 0) return false;
    this.#closeVersion.run(now, id);
    return true;
  }
}
