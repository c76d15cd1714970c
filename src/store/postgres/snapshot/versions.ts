/**
 * The history of versioned records (plans, reports), many at a time: one version per content,
 * valid_from .. valid_to. A version's raw_json is NULL while its content is the record row's
 * own (the text is stored once); before the row's content is replaced, its text moves into
 * those versions.
 */
import { getTableConfig } from "drizzle-orm/pg-core";
import type {
  plans,
  planVersions,
  reportVersions,
  scheduledReports,
} from "../../../tables/postgres/index.js";
import { type CopyTable, copyTable, copyText } from "../copy.js";
import type { PoolClient } from "../pool.js";
import { run } from "../sql.js";

export interface NewVersion {
  id: number;
  contentHash: string;
}

export class VersionHistory {
  readonly #copy: CopyTable<Partial<typeof planVersions.$inferInsert>>;
  readonly #keepText: string;
  readonly #close: string;

  constructor(
    records: typeof plans | typeof scheduledReports,
    versions: typeof planVersions | typeof reportVersions,
  ) {
    const table = getTableConfig(records).name;
    const history = getTableConfig(versions).name;
    this.#copy = copyTable(versions as typeof planVersions, ["versionId"]);
    // Never ends a version before it began (a plan that moved from a company synced later).
    this.#keepText = `UPDATE "${history}" v SET raw_json = r.raw_json,
        valid_to = CASE WHEN v.valid_to IS NULL THEN greatest($2::timestamptz, v.valid_from) ELSE v.valid_to END
      FROM "${table}" r WHERE r.id = v.id AND v.id = ANY($1::bigint[]) AND v.raw_json IS NULL`;
    this.#close = `UPDATE "${history}" SET valid_to = greatest($1::timestamptz, valid_from)
      WHERE id = ANY($2::bigint[]) AND valid_to IS NULL`;
  }

  /** The COPY statement that `line`'s lines go to. */
  get statement(): string {
    return this.#copy.statement;
  }

  /** The COPY line of a version that begins with the row's content (the row holds its text). */
  line(id: number, contentHash: string, at: string, runId: number): string {
    return this.#copy.line({ id, contentHash, validFrom: at, validTo: null, rawJson: null, runId });
  }

  /** Versions begin with the rows' contents (the rows hold their texts). */
  async open(db: PoolClient, items: readonly NewVersion[], at: string, runId: number): Promise<void> {
    if (!items.length) return;
    let text = "";
    for (const i of items) text += this.line(i.id, i.contentHash, at, runId);
    await copyText(db, this.#copy.statement, [text]);
  }

  /** The rows' contents are about to be replaced: their versions keep the texts; the open ones end. */
  async replace(db: PoolClient, ids: readonly number[], at: string): Promise<void> {
    if (ids.length) await run(db, this.#keepText, [ids, at]);
  }

  /** The records are gone: their open versions end (the rows keep the texts). */
  async close(db: PoolClient, ids: readonly number[], at: string): Promise<void> {
    if (ids.length) await run(db, this.#close, [at, ids]);
  }
}
