/**
 * Writes of a plans snapshot, a batch at a time: plan rows, child tables, mobile apps and
 * versions. A batch holds each plan id once, so its statements commute (snapshot/writer.ts).
 */
import { getTableColumns } from "drizzle-orm";
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
import type { Db } from "../pool.js";
import { batchInserter, pluck, run } from "../sql.js";
import { type NewContent, VersionedTable } from "./versions.js";

const CHILD_TABLES = [
  "plan_days_of_week",
  "plan_resolutions",
  "plan_environments",
  "plan_scenarios",
  "plan_alerts",
  "plan_fetch_app_files",
  "plan_mobile_apps",
] as const;

const PLAN_CONTENT_KEYS = Object.keys(getTableColumns(plans)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

const upsertPlans = batchInserter(plans, { upsertKeys: PLAN_CONTENT_KEYS });
const upsertApps = batchInserter(mobileApps, {
  upsertKeys: Object.keys(getTableColumns(mobileApps)).filter((k) => k !== "id"),
});
const children = {
  days: batchInserter(planDaysOfWeek),
  resolutions: batchInserter(planResolutions),
  environments: batchInserter(planEnvironments),
  scenarios: batchInserter(planScenarios),
  alerts: batchInserter(planAlerts),
  fetchAppFiles: batchInserter(planFetchAppFiles),
  planMobileApps: batchInserter(planMobileApps),
};

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
   */
  async write(db: Db, items: readonly PlanContent[], at: string, runId: number): Promise<void> {
    if (!items.length) return;
    const fresh = items.filter((i) => !i.known).map((i) => i.plan.plan.id as number);
    const moved = fresh.length
      ? await pluck<number>(db, "SELECT id FROM plans WHERE id = ANY($1::bigint[])", [fresh])
      : [];
    const replaced = [...items.filter((i) => i.known).map((i) => i.plan.plan.id as number), ...moved];
    if (replaced.length)
      for (const table of CHILD_TABLES)
        await run(db, `DELETE FROM ${table} WHERE plan_id = ANY($1::bigint[])`, [replaced]);
    await upsertApps(db, this.#newApps(items));
    await upsertPlans(
      db,
      items.map((i) => ({
        ...i.plan.plan,
        rawJson: i.rawJson,
        contentHash: i.hash,
        firstSeenAt: at,
        lastSeenAt: at,
        deletedAt: null,
      })),
    );
    const all = items.map((i) => i.plan);
    await children.days(
      db,
      all.flatMap((n) => n.days),
    );
    await children.resolutions(
      db,
      all.flatMap((n) => n.resolutions),
    );
    await children.environments(
      db,
      all.flatMap((n) => n.environments),
    );
    await children.scenarios(
      db,
      all.flatMap((n) => n.scenarios),
    );
    await children.alerts(
      db,
      all.flatMap((n) => n.alerts),
    );
    await children.fetchAppFiles(
      db,
      all.flatMap((n) => n.fetchAppFiles),
    );
    await children.planMobileApps(
      db,
      all.flatMap((n) => n.planMobileApps),
    );
    await this.#versions.open(
      db,
      items.map((i) => ({ id: i.plan.plan.id as number, contentHash: i.hash, rawJson: i.rawJson })),
      at,
      runId,
    );
  }

  /** Seen again, same content. */
  touch(db: Db, ids: readonly number[], at: string): Promise<void> {
    return this.#versions.touch(db, ids, at);
  }

  /** After a complete list: every live plan of the company was seen now (one statement). */
  async touchAllLive(db: Db, companyId: number, at: string): Promise<void> {
    await run(
      db,
      "UPDATE plans SET last_seen_at = $1 WHERE company_id = $2 AND deleted_at IS NULL AND last_seen_at <> $1",
      [at, companyId],
    );
  }

  /** Deleted plans came back with the same content: undelete and start new versions. */
  revive(db: Db, items: readonly NewContent[], at: string, runId: number): Promise<void> {
    return this.#versions.revive(db, items, at, runId);
  }

  markDeleted(db: Db, ids: readonly number[], at: string): Promise<number[]> {
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
