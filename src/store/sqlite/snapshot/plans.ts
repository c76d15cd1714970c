/**
 * Writes of a plans snapshot: plan rows, child tables, mobile apps and versions. A plan new to
 * the company costs its inserts and nothing else: no existence probe (the insert says whether
 * another company holds the id), no version to close.
 */

import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  type MobileAppRow,
  PLAN_BOOKKEEPING,
  type PlanColumns,
  type PlanRowSet,
} from "../../../tables/index.js";
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
} from "../../../tables/sqlite/index.js";
import { PLAN_CHILD_TABLES } from "../../../tables/table-names.js";
import type { RawText } from "../../port-snapshot.js";
import {
  type BatchedInsert,
  compileBatchedInsert,
  compileInsert,
  compileUpdate,
  overwrite,
  type RowWriter,
} from "../binder.js";
import type { Sqlite } from "../connection.js";
import { VersionHistory } from "./versions.js";

/** Columns of a plans row that the store fills in (the writers take them in this order). */
const BOOKKEEPING = PLAN_BOOKKEEPING;
/** The plan's text may come as its UTF-8 bytes (the worker thread's file): stored as that text. */
const TEXT_BYTES = ["rawJson"];

type ChildKey = Exclude<keyof PlanRowSet, "plan" | "mobileApps">;
const CHILDREN: [ChildKey, SQLiteTable][] = [
  ["days", planDaysOfWeek],
  ["resolutions", planResolutions],
  ["environments", planEnvironments],
  ["scenarios", planScenarios],
  ["alerts", planAlerts],
  ["fetchAppFiles", planFetchAppFiles],
  ["planMobileApps", planMobileApps],
];

export interface WriteContext {
  companyId: number;
  at: string;
  runId: number;
  /** The company's last applied list before this snapshot (sync_state.plans_seen_at). */
  seenAt: string | null;
  /** Another company lost a plan to this one: its index is stale now. */
  touchedCompany(companyId: number): void;
}

export class PlanWriter {
  readonly #ctx: WriteContext;
  readonly #insert: RowWriter<PlanColumns>;
  readonly #upsert: RowWriter<PlanColumns>;
  readonly #rewrite: (row: PlanColumns) => unknown;
  /** Child rows, written many to a statement; the plans whose rows are not all written yet. */
  readonly #children: { key: ChildKey; write: BatchedInsert<object> }[];
  readonly #pending = new Set<number>();
  readonly #deleteChildren;
  readonly #app: RowWriter<MobileAppRow>;
  readonly #ownerOf;
  readonly #revive;
  readonly #unlisted;
  readonly #listed;
  readonly #delete;
  readonly #versions: VersionHistory;
  /** Mobile apps already written in this run: they are shared by many plans. */
  readonly #appsWritten = new Set<number>();

  constructor(sqlite: Sqlite, ctx: WriteContext) {
    this.#ctx = ctx;
    this.#insert = compileInsert(sqlite, plans, BOOKKEEPING, "ON CONFLICT(id) DO NOTHING", TEXT_BYTES);
    this.#upsert = compileInsert(
      sqlite,
      plans,
      BOOKKEEPING,
      `ON CONFLICT(id) DO UPDATE SET ${overwrite(plans, ["id", "firstSeenAt"])}`,
      TEXT_BYTES,
    );
    this.#rewrite = compileUpdate<PlanColumns>(sqlite, plans, BOOKKEEPING);
    this.#children = CHILDREN.map(([key, table]) => ({ key, write: compileBatchedInsert(sqlite, table) }));
    this.#deleteChildren = PLAN_CHILD_TABLES.map((t) => sqlite.prepare(`DELETE FROM ${t} WHERE plan_id = ?`));
    this.#app = compileInsert(
      sqlite,
      mobileApps,
      [],
      `ON CONFLICT(id) DO UPDATE SET ${overwrite(mobileApps, ["id"])}`,
    );
    this.#ownerOf = sqlite.prepare("SELECT company_id FROM plans WHERE id = ?").pluck();
    this.#revive = sqlite.prepare("UPDATE plans SET deleted_at = NULL, seen_at = ? WHERE id = ?");
    // Last seen: its own last sighting, or the last list applied (it was live and in it then).
    this.#unlisted = sqlite.prepare(
      `INSERT INTO unlisted_plans (plan_id, company_id, last_seen_at, missing_since)
       SELECT id, company_id, max(seen_at, coalesce(@seenAt, seen_at)), @at FROM plans WHERE id = @id
       ON CONFLICT(plan_id) DO NOTHING`,
    );
    this.#listed = sqlite.prepare("DELETE FROM unlisted_plans WHERE plan_id = ?");
    // Last seen: as unlisted, or its own last sighting, or the last list applied.
    this.#delete = sqlite.prepare(
      `UPDATE plans SET deleted_at = @at, seen_at = coalesce(
         (SELECT u.last_seen_at FROM unlisted_plans u WHERE u.plan_id = plans.id),
         max(seen_at, coalesce(@seenAt, seen_at)))
       WHERE id = @id AND company_id = @companyId AND deleted_at IS NULL`,
    );
    this.#versions = new VersionHistory(sqlite, plans, planVersions);
  }

  /** A plan new to the company; one that another company held moves over. */
  insert(n: PlanRowSet, rawJson: RawText, hash: string): void {
    const { at, runId } = this.#ctx;
    const id = n.plan.id as number;
    if (this.#insert(n.plan, rawJson, hash, at, at, null).changes === 0) {
      this.#ctx.touchedCompany(this.#ownerOf.get(id) as number);
      this.update(n, rawJson, hash);
      return;
    }
    this.#writeChildren(n);
    this.#versions.open(id, hash, at, runId);
  }

  /** A known plan whose content changed (or that came back changed after deletion). */
  update(n: PlanRowSet, rawJson: RawText, hash: string): void {
    const { at, runId } = this.#ctx;
    const id = n.plan.id as number;
    this.#versions.replace(id, at);
    this.#upsert(n.plan, rawJson, hash, at, at, null);
    this.#clearChildren(id);
    this.#writeChildren(n);
    this.#versions.open(id, hash, at, runId);
  }

  /** A stored plan's rows made again from its stored text (replay): no version, no sighting. */
  renormalize(n: PlanRowSet): void {
    const id = n.plan.id as number;
    this.#rewrite(n.plan);
    this.#clearChildren(id);
    this.#writeChildren(n);
  }

  /** A deleted plan came back with the content it had: undeleted, a new version begins. */
  revive(id: number, hash: string): void {
    this.#revive.run(this.#ctx.at, id);
    this.#versions.open(id, hash, this.#ctx.at, this.#ctx.runId);
  }

  /** Missing from a list whose deletions were held back: its last sighting kept. */
  unlisted(id: number): void {
    this.#unlisted.run({ id, at: this.#ctx.at, seenAt: this.#ctx.seenAt });
  }

  /** In a list again (or no longer the company's live plan). */
  listed(id: number): void {
    this.#listed.run(id);
  }

  markDeleted(id: number): void {
    const { at, seenAt, companyId } = this.#ctx;
    if (this.#delete.run({ at, seenAt, id, companyId }).changes > 0) {
      this.#versions.close(id, at);
      this.#listed.run(id);
    }
  }

  /** Writes the child rows still pending (before anything reads them). */
  flush(): void {
    for (const c of this.#children) c.write.flush();
    this.#pending.clear();
  }

  #clearChildren(id: number): void {
    if (this.#pending.has(id)) this.flush();
    for (const stmt of this.#deleteChildren) stmt.run(id);
  }

  #writeChildren(n: PlanRowSet): void {
    this.#pending.add(n.plan.id as number);
    for (const c of this.#children) for (const row of n[c.key]) c.write.add(row);
    for (const app of n.mobileApps) {
      if (this.#appsWritten.has(app.id as number)) continue;
      this.#app(app);
      this.#appsWritten.add(app.id as number);
    }
  }
}
