/**
 * Writes of a plans snapshot, a batch at a time: plan rows, child tables and versions (the
 * run's mobile apps once, at its end: `writeApps`). A batch holds each plan id once, so its
 * statements commute (./writer.ts). Rows that cannot conflict (plans no company holds, children
 * once the old ones are deleted, versions) go by COPY, one per table; rows that replace others
 * are upserted (unnest).
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/pg-core";
import { type MobileAppRow, PLAN_BOOKKEEPING, type PlanRowSet } from "../../../tables/index.js";
import {
  mobileApps,
  planAlerts,
  planDaysOfWeek,
  planEnvironments,
  planFetchAppFiles,
  planMobileApps,
  planResolutions,
  planScenarios,
  plans,
  planVersions,
} from "../../../tables/postgres/index.js";
import { type CopyTable, copyTable, copyText } from "../copy.js";
import type { PoolClient } from "../pool.js";
import { batchInserter, run } from "../sql.js";
import { VersionHistory } from "./versions.js";

const copyPlans = copyTable(plans);
/** The session's staging table of rows that replace others (a temporary table, emptied at commit). */
const STAGING = "tas_plans_in";
const PLAN_COLUMNS = Object.values(getTableColumns(plans)).map((c) => `"${c.name}"`);
/** Columns a replay's rewrite leaves as they are: the id and the bookkeeping, by key. */
const KEPT_BY_REWRITE = new Set<string>(["id", ...PLAN_BOOKKEEPING]);
const REWRITE_FROM_STAGING = `UPDATE plans p SET ${Object.entries(getTableColumns(plans))
  .filter(([key]) => !KEPT_BY_REWRITE.has(key))
  .map(([, c]) => `"${c.name}" = s."${c.name}"`)
  .join(", ")} FROM tas_plans_in s WHERE p.id = s.id`;
const UPSERT_FROM_STAGING = `INSERT INTO plans (${PLAN_COLUMNS.join(", ")}) SELECT ${PLAN_COLUMNS.join(", ")} FROM ${STAGING}
  ON CONFLICT (id) DO UPDATE SET ${Object.values(getTableColumns(plans))
    .filter((c) => c.name !== "id" && c.name !== "first_seen_at")
    .map((c) => `"${c.name}" = excluded."${c.name}"`)
    .join(", ")}`;
const upsertApps = batchInserter(mobileApps, {
  upsertKeys: Object.keys(getTableColumns(mobileApps)).filter((k) => k !== "id"),
});

type ChildKey = Exclude<keyof PlanRowSet, "plan" | "mobileApps">;
/** The child tables: which rows of a plan go where. */
const CHILDREN = (
  [
    ["days", planDaysOfWeek],
    ["resolutions", planResolutions],
    ["environments", planEnvironments],
    ["scenarios", planScenarios],
    ["alerts", planAlerts],
    ["fetchAppFiles", planFetchAppFiles],
    ["planMobileApps", planMobileApps],
  ] as const
).map(([key, table]) => ({
  key: key as ChildKey,
  copy: copyTable(table) as CopyTable<object>,
  delete: `DELETE FROM "${getTableConfig(table).name}" WHERE plan_id = ANY($1::bigint[])`,
}));

export interface WriteContext {
  companyId: number;
  at: string;
  runId: number;
  /** The company's last applied list before this snapshot (sync_state.plans_seen_at). */
  seenAt: string | null;
  /** Another company lost a plan to this one: its index is stale now. */
  touchedCompany(companyId: number): void;
}

/** COPY text gathered into off-heap buffers of about 64 KB: a batch holds no strings for long. */
class TextChunks {
  readonly chunks: Buffer[] = [];
  #pending = "";

  add(text: string): void {
    this.#pending += text;
    if (this.#pending.length >= CHUNK_CHARS) this.#flush();
  }

  /** Everything added, as buffers. */
  buffers(): Buffer[] {
    this.#flush();
    return this.chunks;
  }

  #flush(): void {
    if (this.#pending) this.chunks.push(Buffer.from(this.#pending));
    this.#pending = "";
  }
}

const CHUNK_CHARS = 64 * 1024;

/**
 * The plans with new content of one batch, as COPY text already: rendered as each plan joins
 * the batch and kept off the JS heap. A batch of row objects, alive while the next one fills,
 * taught V8 to allocate every row in the old generation (600 MB promoted, 420 MB RSS for
 * 100,000 plans); so did strings.
 */
export class PlanBatch {
  /** Per plan: its id, whether the company has it, its `plans` line. */
  readonly plans: { id: number; known: boolean; line: Buffer }[] = [];
  /** Plans whose rows are made again from their stored text (replay): same content, no version. */
  readonly rewrites: { id: number; line: Buffer }[] = [];
  readonly children = CHILDREN.map(() => new TextChunks());
  readonly versions = new TextChunks();

  get size(): number {
    return this.plans.length + this.rewrites.length;
  }
}

/** A plan's child rows, as COPY lines into the batch's chunks. */
function renderChildren(batch: PlanBatch, n: PlanRowSet): void {
  for (const [k, child] of CHILDREN.entries()) {
    const chunks = batch.children[k] as TextChunks;
    for (const r of n[child.key]) chunks.add(child.copy.line(r));
  }
}

export class PlanWriter {
  readonly #versions = new VersionHistory(plans, planVersions);
  /** Mobile apps already met in this run, and their rows, written at its end (`writeApps`). */
  readonly #appsSeen = new Set<number>();
  #apps: MobileAppRow[] = [];
  /** Whether this session has the staging table for plans that replace rows. */
  #staged = false;

  constructor(private readonly ctx: WriteContext) {}

  /**
   * Adds a plan's rows to `batch` as COPY lines (first_seen_at is this run's; a row that exists
   * keeps its own). `known`: the company has it; else it may still exist under another company.
   */
  render(batch: PlanBatch, n: PlanRowSet, rawJson: string, hash: string, known: boolean): void {
    const id = n.plan.id as number;
    this.#newApps(n);
    batch.plans.push({ id, known, line: this.#planLine(n, rawJson, hash) });
    renderChildren(batch, n);
    batch.versions.add(this.#versions.line(id, hash, this.ctx.at, this.ctx.runId));
  }

  /**
   * Adds a stored plan's rows made again from its stored text (replay): no version, no sighting.
   * Its bookkeeping columns (the text and hash among them) stay as they are (REWRITE_FROM_STAGING
   * leaves them out): the line carries placeholders for them.
   */
  renderRewrite(batch: PlanBatch, n: PlanRowSet): void {
    this.#newApps(n);
    batch.rewrites.push({ id: n.plan.id as number, line: this.#planLine(n, "", "") });
    renderChildren(batch, n);
  }

  /** Keeps the plan's mobile apps not yet met in this run (the first row of each is written). */
  #newApps(n: PlanRowSet): void {
    for (const app of n.mobileApps) {
      if (this.#appsSeen.has(app.id as number)) continue;
      this.#appsSeen.add(app.id as number);
      this.#apps.push(app);
    }
  }

  /**
   * Upserts the run's mobile apps, once, at the end of its transaction and sorted by id: runs of
   * two companies that share apps then lock their rows in the same order (batch by batch, the
   * order would be each list's, and two runs could wait on each other). Nothing in the
   * transaction reads them before (plan_mobile_apps has no foreign key to them).
   */
  async writeApps(db: PoolClient): Promise<void> {
    const apps = this.#apps.sort((a, b) => (a.id as number) - (b.id as number));
    this.#apps = [];
    if (apps.length) await upsertApps(db, apps);
  }

  /** A plan's `plans` line, first seen and seen now. */
  #planLine(n: PlanRowSet, rawJson: string, contentHash: string): Buffer {
    const { at } = this.ctx;
    return Buffer.from(
      copyPlans.line(n.plan, { rawJson, contentHash, firstSeenAt: at, seenAt: at, deletedAt: null }),
    );
  }

  /**
   * Writes a batch: rows that exist are replaced (first_seen_at kept) through a staging table,
   * the rest copied; children replaced; a version opened for each plan.
   */
  async write(db: PoolClient, batch: PlanBatch): Promise<void> {
    if (!batch.size) return;
    const items = batch.plans;
    const exists = await this.#existing(db, items);
    const replaced = items.filter((i) => exists.has(i.id));
    const replacedIds = replaced.map((i) => i.id);
    if (replaced.length) await this.#versions.replace(db, replacedIds, this.ctx.at);
    const emptied = [...replacedIds, ...batch.rewrites.map((r) => r.id)];
    if (emptied.length) for (const child of CHILDREN) await run(db, child.delete, [emptied]);
    const fresh = items.filter((i) => !exists.has(i.id)).map((i) => i.line);
    if (fresh.length) await copyText(db, copyPlans.statement, fresh);
    const replacing = replaced.map((i) => i.line);
    if (replacing.length) await this.#viaStaging(db, replacing, UPSERT_FROM_STAGING);
    const rewrites = batch.rewrites.map((r) => r.line);
    if (rewrites.length) await this.#viaStaging(db, rewrites, REWRITE_FROM_STAGING);
    for (const [k, child] of CHILDREN.entries()) {
      const buffers = (batch.children[k] as TextChunks).buffers();
      if (buffers.length) await copyText(db, child.copy.statement, buffers);
    }
    const versions = batch.versions.buffers();
    if (versions.length) await copyText(db, this.#versions.statement, versions);
  }

  /** Rows that exist: copied into the session's staging table, then written from it by `statement`. */
  async #viaStaging(db: PoolClient, lines: readonly Buffer[], statement: string): Promise<void> {
    if (!this.#staged) {
      await db.query(`CREATE TEMP TABLE IF NOT EXISTS ${STAGING} (LIKE plans) ON COMMIT DELETE ROWS`);
      this.#staged = true;
    }
    await copyText(db, copyPlans.statement.replace('"plans"', STAGING), lines);
    await run(db, statement);
    await run(db, `TRUNCATE ${STAGING}`);
  }

  /**
   * Ids of the batch that have a row: the company's, and plans another company holds (one
   * probe per batch for the ids the company's index does not know; a COPY would fail on them).
   */
  async #existing(db: PoolClient, items: readonly { id: number; known: boolean }[]): Promise<Set<number>> {
    const exists = new Set<number>();
    const fresh: number[] = [];
    for (const i of items) {
      if (i.known) exists.add(i.id);
      else fresh.push(i.id);
    }
    if (fresh.length) {
      const { rows } = await run<{ id: number; company_id: number }>(
        db,
        "SELECT id, company_id FROM plans WHERE id = ANY($1::bigint[])",
        [fresh],
      );
      for (const r of rows) {
        exists.add(Number(r.id));
        this.ctx.touchedCompany(Number(r.company_id));
      }
    }
    return exists;
  }

  /** Deleted plans came back with the contents they had: undeleted, new versions begin. */
  async revive(db: PoolClient, items: readonly { id: number; contentHash: string }[]): Promise<void> {
    if (!items.length) return;
    await run(db, "UPDATE plans SET deleted_at = NULL, seen_at = $1 WHERE id = ANY($2::bigint[])", [
      this.ctx.at,
      items.map((i) => i.id),
    ]);
    await this.#versions.open(db, items, this.ctx.at, this.ctx.runId);
  }

  /** Missing from a list whose deletions were held back: their last sightings kept. */
  async unlisted(db: PoolClient, ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    await run(
      db,
      `INSERT INTO unlisted_plans (plan_id, company_id, last_seen_at, missing_since)
       SELECT id, company_id, greatest(seen_at, coalesce($2::timestamptz, seen_at)), $3 FROM plans
       WHERE id = ANY($1::bigint[]) ON CONFLICT (plan_id) DO NOTHING`,
      [ids, this.ctx.seenAt, this.ctx.at],
    );
  }

  /** In a list again (or no longer the company's live plans). */
  async listed(db: PoolClient, ids: readonly number[]): Promise<void> {
    if (ids.length) await run(db, "DELETE FROM unlisted_plans WHERE plan_id = ANY($1::bigint[])", [ids]);
  }

  /** Last seen: as unlisted, or its own last sighting, or the last list applied (it was live then). */
  async markDeleted(db: PoolClient, ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    const { at, seenAt, companyId } = this.ctx;
    const { rows } = await run<{ id: number }>(
      db,
      `UPDATE plans SET deleted_at = $1, seen_at = coalesce(
         (SELECT u.last_seen_at FROM unlisted_plans u WHERE u.plan_id = plans.id),
         greatest(seen_at, coalesce($3::timestamptz, seen_at)))
       WHERE id = ANY($2::bigint[]) AND company_id = $4 AND deleted_at IS NULL RETURNING id`,
      [at, ids, seenAt, companyId],
    );
    const gone = rows.map((r) => Number(r.id));
    await this.#versions.close(db, gone, at);
    await this.listed(db, gone);
  }
}
