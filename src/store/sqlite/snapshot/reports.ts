/** Writes of scheduled reports: report rows, child tables and versions. */
import { getTableColumns } from "drizzle-orm";
import type { NormalizedReport } from "../../../normalize/types.js";
import {
  reportAlerts,
  reportPlans,
  reportRecipients,
  reportStatuses,
  reportUserRoles,
  reportVersions,
  scheduledReports,
} from "../../../schema/sqlite/index.js";
import { REPORT_CHILD_TABLES } from "../../../schema/table-names.js";
import type { Sqlite } from "../connection.js";
import { inserter } from "../statements.js";
import { VersionedTable } from "./versions.js";

const CONTENT_KEYS = Object.keys(getTableColumns(scheduledReports)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

export class ReportWriter {
  readonly #upsert;
  readonly #children;
  readonly #deleteChildren;
  readonly #versions: VersionedTable;

  constructor(sqlite: Sqlite) {
    this.#upsert = inserter(sqlite, scheduledReports, { upsertKeys: CONTENT_KEYS });
    this.#children = {
      plans: inserter(sqlite, reportPlans),
      recipients: inserter(sqlite, reportRecipients),
      roles: inserter(sqlite, reportUserRoles),
      statuses: inserter(sqlite, reportStatuses),
      alerts: inserter(sqlite, reportAlerts),
    };
    this.#deleteChildren = REPORT_CHILD_TABLES.map((t) =>
      sqlite.prepare(`DELETE FROM ${t} WHERE report_id = ?`),
    );
    this.#versions = new VersionedTable(sqlite, scheduledReports, reportVersions);
  }

  /** Insert or replace a report whose content is new; first_seen_at is kept on update. */
  write(n: NormalizedReport, rawJson: string, contentHash: string, now: string, runId: number): void {
    const id = n.report.id as number;
    this.#upsert({ ...n.report, rawJson, contentHash, firstSeenAt: now, lastSeenAt: now, deletedAt: null });
    for (const stmt of this.#deleteChildren) stmt.run(id);
    const c = this.#children;
    for (const planId of n.planIds) c.plans({ reportId: id, planId });
    for (const email of n.recipients) c.recipients({ reportId: id, email });
    for (const role of n.userRoles) c.roles({ reportId: id, role });
    for (const status of n.statuses) c.statuses({ reportId: id, status });
    for (const alert of n.alerts) c.alerts(alert);
    this.#versions.open(id, contentHash, rawJson, now, runId);
  }

  touch(id: number, now: string): void {
    this.#versions.touch(id, now);
  }

  revive(id: number, rawJson: string, contentHash: string, now: string, runId: number): void {
    this.#versions.revive(id, rawJson, contentHash, now, runId);
  }

  /** Returns whether the report was live (and is now deleted). */
  markDeleted(id: number, now: string): boolean {
    return this.#versions.markDeleted(id, now);
  }
}
