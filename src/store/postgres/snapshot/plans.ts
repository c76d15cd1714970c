/**
 * Writes of a plans snapshot, a batch at a time: plan rows, child tables, mobile apps and
 * versions. A batch holds each plan id once, so its statements commute (snapshot/writer.ts).
 * Rows that cannot conflict (plans no company holds, children once the old ones are deleted,
 * versions) go by COPY, one per table; rows that replace others are upserted (unnest).
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig } from "drizzle-orm/pg-core";
import type { NormalizedPlan } from "../../../normalize/types.js";
import type { MobileAppRow } from "../../../schema/index.js";
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
import { CopyEscaped, type CopyTable, copyTable, copyText } from "../copy.js";
import type { PoolClient } from "../pool.js";
import { batchInserter, pluck, run } from "../sql.js";
import { type NewContent, VersionedTable } from "./versions.js";

const PLAN_CONTENT_KEYS = Object.keys(getTableColumns(plans)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

const upsertPlans = batchInserter(plans, { upsertKeys: PLAN_CONTENT_KEYS });
const copyPlans = copyTable(plans);
const upsertApps = batchInserter(mobileApps, {
  upsertKeys: Object.keys(getTableColumns(mobileApps)).filter((k) => k !== "id"),
});

type ChildKey = Exclude<keyof NormalizedPlan, "plan" | "mobileApps">;
/** The child tables: which rows of a normalized plan go where. */
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
  plan: NormalizedPlan;
  rawJson: string;
  hash: string;
  known: boolean;
}

export class PlanWriter {
  readonly #versions = new VersionedTable(plans, planVersions);
  /** Mobile apps already written in this run: they are shared by many plans. */
  readonly #appsWritten = new Set<number>();

  /**
   * Plans new to the company (one another company held moves over) and known plans whose
   * content changed: rows upserted (first_seen_at kept), children replaced, a version opened.
   * Only rows that exist are upserted and have children to delete; the rest is copied.
   */
  async write(db: PoolClient, items: readonly PlanContent[], at: string, runId: number): Promise<void> {
    if (!items.length) return;
    const exists = await this.#existing(db, items);
    const replaced = items.filter((i) => exists.has(i.plan.plan.id as number));
    if (replaced.length) {
      const ids = replaced.map((i) => i.plan.plan.id as number);
      for (const child of CHILDREN) await run(db, child.delete, [ids]);
    }
    await upsertApps(db, this.#newApps(items));
    const book = <R>(rawJson: R, contentHash: string) => ({
      rawJson,
      contentHash,
      firstSeenAt: at,
      lastSeenAt: at,
      deletedAt: null,
    });
    await upsertPlans(
      db,
      replaced.map((i) => ({ ...i.plan.plan, ...book(i.rawJson, i.hash) })),
    );
    // Each raw JSON goes into the plan row and its version: escaped once.
    const raw = items.map((i) => new CopyEscaped(i.rawJson));
    let text = "";
    items.forEach((i, k) => {
      if (!exists.has(i.plan.plan.id as number)) text += copyPlans.line(i.plan.plan, book(raw[k], i.hash));
    });
    if (text) await copyText(db, copyPlans.statement, [text]);
    for (const child of CHILDREN) {
      text = "";
      for (const i of items) for (const r of i.plan[child.key]) text += child.copy.line(r);
      if (text) await copyText(db, child.copy.statement, [text]);
    }
    await this.#versions.open(
      db,
      items.map((i, k) => ({
        id: i.plan.plan.id as number,
        contentHash: i.hash,
        rawJson: raw[k] as CopyEscaped,
      })),
      at,
      runId,
    );
  }

  /** Ids of the batch that have a row: the company's, and plans another company holds. */
  async #existing(db: PoolClient, items: readonly PlanContent[]): Promise<Set<number>> {
    const exists = new Set<number>();
    const fresh: number[] = [];
    for (const i of items) {
      if (i.known) exists.add(i.plan.plan.id as number);
      else fresh.push(i.plan.plan.id as number);
    }
    if (fresh.length)
      for (const id of await pluck<number>(db, "SELECT id FROM plans WHERE id = ANY($1::bigint[])", [fresh]))
        exists.add(id);
    return exists;
  }

  /** Seen again, same content. */
  touch(db: PoolClient, ids: readonly number[], at: string): Promise<void> {
    return this.#versions.touch(db, ids, at);
  }

  /** After a complete list: every live plan of the company was seen now (one statement). */
  async touchAllLive(db: PoolClient, companyId: number, at: string): Promise<void> {
    await run(
      db,
      "UPDATE plans SET last_seen_at = $1 WHERE company_id = $2 AND deleted_at IS NULL AND last_seen_at <> $1",
      [at, companyId],
    );
  }

  /** Deleted plans came back with the same content: undelete and start new versions. */
  revive(db: PoolClient, items: readonly NewContent[], at: string, runId: number): Promise<void> {
    return this.#versions.revive(db, items, at, runId);
  }

  markDeleted(db: PoolClient, ids: readonly number[], at: string): Promise<number[]> {
    return this.#versions.markDeleted(db, ids, at);
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
