/** Writes of scheduled reports: report rows, child tables and versions. */
import { REPORT_BOOKKEEPING, type ReportColumns, type ReportRowSet } from "../../../tables/index.js";
import {
  reportAlerts,
  reportPlans,
  reportRecipients,
  reportStatuses,
  reportUserRoles,
  reportVersions,
  scheduledReports,
} from "../../../tables/sqlite/index.js";
import { REPORT_CHILD_TABLES } from "../../../tables/table-names.js";
import { compileInsert, compileUpdate, overwrite, type RowWriter } from "../binder.js";
import type { Sqlite } from "../connection.js";
import { prepared } from "../prepared.js";
import { VersionHistory } from "./versions.js";

/** Columns of a report row that the store fills in (the writers take them in this order). */
const BOOKKEEPING = REPORT_BOOKKEEPING;

export class ReportWriter {
  readonly #sqlite: Sqlite;
  readonly #upsert: RowWriter<ReportColumns>;
  readonly #rewrite: (row: ReportColumns) => unknown;
  readonly #children;
  readonly #deleteChildren;
  readonly #versions: VersionHistory;

  constructor(
    sqlite: Sqlite,
    private readonly at: string,
    private readonly runId: number,
  ) {
    this.#sqlite = sqlite;
    this.#upsert = compileInsert(
      sqlite,
      scheduledReports,
      BOOKKEEPING,
      `ON CONFLICT(id) DO UPDATE SET ${overwrite(scheduledReports, ["id", "firstSeenAt"])}`,
    );
    this.#rewrite = compileUpdate<ReportColumns>(sqlite, scheduledReports, BOOKKEEPING);
    this.#children = {
      plans: compileInsert<object>(sqlite, reportPlans),
      recipients: compileInsert<object>(sqlite, reportRecipients),
      roles: compileInsert<object>(sqlite, reportUserRoles),
      statuses: compileInsert<object>(sqlite, reportStatuses),
      alerts: compileInsert<object>(sqlite, reportAlerts),
    };
    this.#deleteChildren = REPORT_CHILD_TABLES.map((t) =>
      sqlite.prepare(`DELETE FROM ${t} WHERE report_id = ?`),
    );
    this.#versions = new VersionHistory(sqlite, scheduledReports, reportVersions);
  }

  /** Insert or replace a report whose content is new; first_seen_at is kept on update. */
  write(n: ReportRowSet, rawJson: string, contentHash: string): void {
    const { at } = this;
    const id = n.report.id as number;
    this.#versions.replace(id, at);
    this.#upsert(n.report, rawJson, contentHash, at, at, null);
    this.#writeChildren(n);
    this.#versions.open(id, contentHash, at, this.runId);
  }

  /** A stored report's rows made again from its stored text (replay): no version, no sighting. */
  renormalize(n: ReportRowSet): void {
    this.#rewrite(n.report);
    this.#writeChildren(n);
  }

  #writeChildren(n: ReportRowSet): void {
    const id = n.report.id as number;
    for (const stmt of this.#deleteChildren) stmt.run(id);
    const c = this.#children;
    for (const planId of n.planIds) c.plans({ reportId: id, planId });
    for (const email of n.recipients) c.recipients({ reportId: id, email });
    for (const role of n.userRoles) c.roles({ reportId: id, role });
    for (const status of n.statuses) c.statuses({ reportId: id, status });
    for (const alert of n.alerts) c.alerts(alert);
  }

  /** Fetched again, unchanged: one request per report, one small update. */
  touch(id: number): void {
    prepared(this.#sqlite, "UPDATE scheduled_reports SET last_seen_at = ? WHERE id = ?").run(this.at, id);
  }

  /** A deleted report came back with the content it had. */
  revive(id: number, contentHash: string): void {
    prepared(
      this.#sqlite,
      "UPDATE scheduled_reports SET deleted_at = NULL, last_seen_at = ? WHERE id = ?",
    ).run(this.at, id);
    this.#versions.open(id, contentHash, this.at, this.runId);
  }

  markDeleted(id: number): void {
    const gone = prepared(
      this.#sqlite,
      "UPDATE scheduled_reports SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
    ).run(this.at, id);
    if (gone.changes > 0) this.#versions.close(id, this.at);
  }
}
