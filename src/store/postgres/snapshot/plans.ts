/**
 * Writes of a plans snapshot, a batch at a time: plan rows, child tables, mobile apps and
 * versions. A batch holds each plan id once, so its statements commute (./writer.ts). Rows that
 * cannot conflict (plans no company holds, children once the old ones are deleted, versions) go
 * by COPY, one per table; rows that replace others are upserted (unnest).
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/pg-core";
import type { MobileAppRow, PlanRowSet } from "../../../schema/index.js";
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
} from "../../../schema/postgres/index.js";
import { type CopyTable, copyTable, copyText } from "../copy.js";
import type { PoolClient } from "../pool.js";
import { batchInserter, run } from "../sql.js";
import { VersionHistory } from "./versions.js";

const PLAN_CONTENT_KEYS = Object.keys(getTableColumns(plans)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

const upsertPlans = batchInserter(plans, { upsertKeys: PLAN_CONTENT_KEYS });
const copyPlans = copyTable(plans);
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

/** A plan with new content: `known` when the company already has it (plan.update). */
export interface PlanContent {
  plan: PlanRowSet;
  rawJson: string;
  hash: string;
  known: boolean;
}

export interface WriteContext {
  companyId: number;
  at: string;
  runId: number;
  /** The company's last complete list before this snapshot (sync_state.plans_listed_at). */
  listedAt: string | null;
  /** Another company lost a plan to this one: its index is stale now. */
  touchedCompany(companyId: number): void;
}

export class PlanWriter {
  readonly #versions = new VersionHistory(plans, planVersions);
  /** Mobile apps already written in this run: they are shared by many plans. */
  readonly #appsWritten = new Set<number>();

  constructor(private readonly ctx: WriteContext) {}

  /**
   * Plans new to the company (one another company held moves over) and known plans whose
   * content changed: rows upserted (first_seen_at kept), children replaced, a version opened.
   * Only rows that exist are upserted and have children to delete; the rest is copied.
   */
  async write(db: PoolClient, items: readonly PlanContent[]): Promise<void> {
    if (!items.length) return;
    const { at, runId } = this.ctx;
    const exists = await this.#existing(db, items);
    const replaced = items.filter((i) => exists.has(i.plan.plan.id as number));
    if (replaced.length) {
      const ids = replaced.map((i) => i.plan.plan.id as number);
      await this.#versions.replace(db, ids, at);
      for (const child of CHILDREN) await run(db, child.delete, [ids]);
    }
    await upsertApps(db, this.#newApps(items));
    const book = (rawJson: string, contentHash: string) => ({
      rawJson,
      contentHash,
      firstSeenAt: at,
      seenAt: at,
      deletedAt: null,
    });
    await upsertPlans(
      db,
      replaced.map((i) => ({ ...i.plan.plan, ...book(i.rawJson, i.hash) })),
    );
    let text = "";
    for (const i of items)
      if (!exists.has(i.plan.plan.id as number)) text += copyPlans.line(i.plan.plan, book(i.rawJson, i.hash));
    if (text) await copyText(db, copyPlans.statement, [text]);
    for (const child of CHILDREN) {
      text = "";
      for (const i of items) for (const r of i.plan[child.key]) text += child.copy.line(r);
      if (text) await copyText(db, child.copy.statement, [text]);
    }
    await this.#versions.open(
      db,
      items.map((i) => ({ id: i.plan.plan.id as number, contentHash: i.hash })),
      at,
      runId,
    );
  }

  /**
   * Ids of the batch that have a row: the company's, and plans another company holds (one
   * probe per batch for the ids the company's index does not know; a COPY would fail on them).
   */
  async #existing(db: PoolClient, items: readonly PlanContent[]): Promise<Set<number>> {
    const exists = new Set<number>();
    const fresh: number[] = [];
    for (const i of items) {
      if (i.known) exists.add(i.plan.plan.id as number);
      else fresh.push(i.plan.plan.id as number);
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

  /** Seen unchanged in a list that does not vouch for all plans (deletions held back). */
  async seen(db: PoolClient, ids: readonly number[]): Promise<void> {
    if (ids.length)
      await run(db, "UPDATE plans SET seen_at = $1 WHERE id = ANY($2::bigint[])", [this.ctx.at, ids]);
  }

  /** Last seen: in its own last sighting, or in the last complete list (it was live then). */
  async markDeleted(db: PoolClient, ids: readonly number[]): Promise<void> {
    if (!ids.length) return;
    const { at, listedAt, companyId } = this.ctx;
    const { rows } = await run<{ id: number }>(
      db,
      `UPDATE plans SET deleted_at = $1, seen_at = greatest(seen_at, coalesce($3::timestamptz, seen_at))
       WHERE id = ANY($2::bigint[]) AND company_id = $4 AND deleted_at IS NULL RETURNING id`,
      [at, ids, listedAt, companyId],
    );
    await this.#versions.close(
      db,
      rows.map((r) => Number(r.id)),
      at,
    );
  }

  /**
   * The batch's mobile apps not written yet in this run, the first record of each id, by id:
   * applies of two companies that share an app then lock its row in the same order.
   */
  #newApps(items: readonly PlanContent[]): MobileAppRow[] {
    const out: MobileAppRow[] = [];
    for (const i of items)
      for (const app of i.plan.mobileApps) {
        const id = app.id as number;
        if (this.#appsWritten.has(id)) continue;
        this.#appsWritten.add(id);
        out.push(app);
      }
    return out.sort((a, b) => (a.id as number) - (b.id as number));
  }
}
