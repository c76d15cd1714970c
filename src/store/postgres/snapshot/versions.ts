/**
 * The life of versioned records (plans, reports), many at a time: their rows' `last_seen_at`
 * and `deleted_at`, and their history, one version per content, valid_from..valid_to.
 */
import { getTableConfig } from "drizzle-orm/pg-core";
import type {
  plans,
  planVersions,
  reportVersions,
  scheduledReports,
} from "../../../schema/postgres/index.js";
import { type CopyEscaped, type CopyTable, copyTable, copyText } from "../copy.js";
import type { PoolClient } from "../pool.js";
import { pluck, run } from "../sql.js";

export interface NewContent {
  id: number;
  contentHash: string;
  /** Escaped already when the same text also went into the record's row by COPY. */
  rawJson: string | CopyEscaped;
}

export class VersionedTable {
  readonly #copyVersions: CopyTable<Partial<typeof planVersions.$inferInsert>>;
  readonly #close: string;
  readonly #touch: string;
  readonly #revive: string;
  readonly #markDeleted: string;

  constructor(
    records: typeof plans | typeof scheduledReports,
    versions: typeof planVersions | typeof reportVersions,
  ) {
    const table = getTableConfig(records).name;
    this.#copyVersions = copyTable(versions as typeof planVersions, ["versionId"]);
    // Never before the version began (a plan that moved from a company synced later).
    this.#close = `UPDATE "${getTableConfig(versions).name}" SET valid_to = greatest($1::timestamptz, valid_from)
      WHERE id = ANY($2::bigint[]) AND valid_to IS NULL`;
    this.#touch = `UPDATE "${table}" SET last_seen_at = $1 WHERE id = ANY($2::bigint[])`;
    this.#revive = `UPDATE "${table}" SET deleted_at = NULL, last_seen_at = $1 WHERE id = ANY($2::bigint[])`;
    this.#markDeleted = `UPDATE "${table}" SET deleted_at = $1 WHERE id = ANY($2::bigint[]) AND deleted_at IS NULL
      RETURNING id`;
  }

  /** New content: close the open version of each id (if any) and open a new one. */
  async open(db: PoolClient, items: readonly NewContent[], at: string, runId: number): Promise<void> {
    if (!items.length) return;
    await run(db, this.#close, [at, items.map((i) => i.id)]);
    let text = "";
    for (const i of items)
      text += this.#copyVersions.line(
        { id: i.id, contentHash: i.contentHash, validFrom: at, validTo: null, runId },
        { rawJson: i.rawJson },
      );
    await copyText(db, this.#copyVersions.statement, [text]);
  }

  /** Seen again, same content. */
  async touch(db: PoolClient, ids: readonly number[], at: string): Promise<void> {
    if (ids.length) await run(db, this.#touch, [at, ids]);
  }

  /** Deleted records came back with the same content: undelete and start new versions. */
  async revive(db: PoolClient, items: readonly NewContent[], at: string, runId: number): Promise<void> {
    if (!items.length) return;
    await run(db, this.#revive, [at, items.map((i) => i.id)]);
    await this.open(db, items, at, runId);
  }

  /** The records are gone: mark them deleted and end their last versions. Returns the ids that were live. */
  async markDeleted(db: PoolClient, ids: readonly number[], at: string): Promise<number[]> {
    if (!ids.length) return [];
    const live = await pluck<number>(db, this.#markDeleted, [at, ids]);
    if (live.length) await run(db, this.#close, [at, live]);
    return live;
  }
}
