/**
 * Writes of scheduled reports, one operation at a time: a company has a few, configured by id
 * (the same id may even be listed twice, which a batch could not upsert).
 */
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
} from "../../../schema/postgres/index.js";
import { REPORT_CHILD_TABLES } from "../../../schema/table-names.js";
import type { PoolClient } from "../pool.js";
import { batchInserter, run } from "../sql.js";
import { VersionedTable } from "./versions.js";

const CONTENT_KEYS = Object.keys(getTableColumns(scheduledReports)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

const upsert = batchInserter(scheduledReports, { upsertKeys: CONTENT_KEYS });
const children = {
  plans: batchInserter(reportPlans),
  recipients: batchInserter(reportRecipients),
  roles: batchInserter(reportUserRoles),
  statuses: batchInserter(reportStatuses),
  alerts: batchInserter(reportAlerts),
};

export class ReportWriter {
  readonly #versions = new VersionedTable(scheduledReports, reportVersions);

  /** Insert or replace a report whose content is new; first_seen_at is kept on update. */
  async write(
    db: PoolClient,
    n: NormalizedReport,
    rawJson: string,
    contentHash: string,
    at: string,
    runId: number,
  ) {
    const id = n.report.id as number;
    await upsert(db, [
      { ...n.report, rawJson, contentHash, firstSeenAt: at, lastSeenAt: at, deletedAt: null },
    ]);
    for (const table of REPORT_CHILD_TABLES) await run(db, `DELETE FROM ${table} WHERE report_id = $1`, [id]);
    await children.plans(
      db,
      n.planIds.map((planId) => ({ reportId: id, planId })),
    );
    await children.recipients(
      db,
      n.recipients.map((email) => ({ reportId: id, email })),
    );
    await children.roles(
      db,
      n.userRoles.map((role) => ({ reportId: id, role })),
    );
    await children.statuses(
      db,
      n.statuses.map((status) => ({ reportId: id, status })),
    );
    await children.alerts(db, n.alerts);
    await this.#versions.open(db, [{ id, contentHash, rawJson }], at, runId);
  }

  touch(db: PoolClient, id: number, at: string): Promise<void> {
    return this.#versions.touch(db, [id], at);
  }

  revive(
    db: PoolClient,
    id: number,
    rawJson: string,
    contentHash: string,
    at: string,
    runId: number,
  ): Promise<void> {
    return this.#versions.revive(db, [{ id, contentHash, rawJson }], at, runId);
  }

  async markDeleted(db: PoolClient, id: number, at: string): Promise<boolean> {
    return (await this.#versions.markDeleted(db, [id], at)).length > 0;
  }
}
