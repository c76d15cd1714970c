/** Writes of a plans snapshot: plan rows, child tables, mobile apps and versions. */
import { getTableColumns } from "drizzle-orm";
import type { NormalizedPlan } from "../../../normalize/types.js";
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
} from "../../../schema/sqlite/index.js";
import { PLAN_CHILD_TABLES } from "../../../schema/table-names.js";
import type { Sqlite } from "../connection.js";
import { inserter } from "../statements.js";
import { VersionedTable } from "./versions.js";

const PLAN_CONTENT_KEYS = Object.keys(getTableColumns(plans)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

export class PlanWriter {
  readonly #insertPlan;
  readonly #upsertPlan;
  readonly #children;
  readonly #deleteChildren;
  readonly #upsertApp;
  readonly #touchAll;
  readonly #exists;
  readonly #versions: VersionedTable;
  /** Mobile apps already written in this run: they are shared by many plans. */
  readonly #appsWritten = new Set<number>();

  constructor(sqlite: Sqlite) {
    this.#insertPlan = inserter(sqlite, plans);
    this.#upsertPlan = inserter(sqlite, plans, { upsertKeys: PLAN_CONTENT_KEYS });
    this.#children = {
      days: inserter(sqlite, planDaysOfWeek),
      resolutions: inserter(sqlite, planResolutions),
      environments: inserter(sqlite, planEnvironments),
      scenarios: inserter(sqlite, planScenarios),
      alerts: inserter(sqlite, planAlerts),
      fetchAppFiles: inserter(sqlite, planFetchAppFiles),
      planMobileApps: inserter(sqlite, planMobileApps),
    };
    this.#deleteChildren = PLAN_CHILD_TABLES.map((t) => sqlite.prepare(`DELETE FROM ${t} WHERE plan_id = ?`));
    this.#upsertApp = inserter(sqlite, mobileApps, {
      upsertKeys: Object.keys(getTableColumns(mobileApps)).filter((k) => k !== "id"),
    });
    this.#touchAll = sqlite.prepare(
      "UPDATE plans SET last_seen_at = ? WHERE company_id = ? AND deleted_at IS NULL AND last_seen_at <> ?",
    );
    this.#exists = sqlite.prepare("SELECT 1 FROM plans WHERE id = ?").pluck();
    this.#versions = new VersionedTable(sqlite, plans, planVersions);
  }

  /** A plan new to the company; one that another company held moves over (its row is updated). */
  insert(n: NormalizedPlan, rawJson: string, contentHash: string, now: string, runId: number): void {
    if (this.#exists.get(n.plan.id) !== undefined) {
      this.update(n, rawJson, contentHash, now, runId);
      return;
    }
    this.#insertPlan({ ...n.plan, rawJson, contentHash, firstSeenAt: now, lastSeenAt: now, deletedAt: null });
    this.#writeChildren(n);
    this.#versions.open(n.plan.id as number, contentHash, rawJson, now, runId);
  }

  /** A known plan whose content changed (or that came back changed after deletion). */
  update(n: NormalizedPlan, rawJson: string, contentHash: string, now: string, runId: number): void {
    const id = n.plan.id as number;
    this.#upsertPlan({ ...n.plan, rawJson, contentHash, firstSeenAt: now, lastSeenAt: now, deletedAt: null });
    for (const stmt of this.#deleteChildren) stmt.run(id);
    this.#writeChildren(n);
    this.#versions.open(id, contentHash, rawJson, now, runId);
  }

  /** Seen again, same content. */
  touch(id: number, now: string): void {
    this.#versions.touch(id, now);
  }

  /** After a complete list: every live plan of the company was seen now (one statement). */
  touchAllLive(companyId: number, now: string): void {
    this.#touchAll.run(now, companyId, now);
  }

  /** A deleted plan came back with the same content: undelete and start a new version. */
  revive(id: number, rawJson: string, contentHash: string, now: string, runId: number): void {
    this.#versions.revive(id, rawJson, contentHash, now, runId);
  }

  markDeleted(id: number, now: string): boolean {
    return this.#versions.markDeleted(id, now);
  }

  #writeChildren(n: NormalizedPlan): void {
    const c = this.#children;
    for (const r of n.days) c.days(r);
    for (const r of n.resolutions) c.resolutions(r);
    for (const r of n.environments) c.environments(r);
    for (const r of n.scenarios) c.scenarios(r);
    for (const r of n.alerts) c.alerts(r);
    for (const r of n.fetchAppFiles) c.fetchAppFiles(r);
    for (const app of n.mobileApps) {
      if (this.#appsWritten.has(app.id as number)) continue;
      this.#upsertApp(app);
      this.#appsWritten.add(app.id as number);
    }
    for (const r of n.planMobileApps) c.planMobileApps(r);
  }
}
