/**
 * Writes of scheduled reports, one operation at a time: a company has a few, configured by id
 * (the same id may even be listed twice, which a batch could not upsert).
 */
import { getTableColumns } from "drizzle-orm";
import { REPORT_BOOKKEEPING, type ReportRowSet } from "../../../tables/index.js";
import {
  reportAlerts,
  reportPlans,
  reportRecipients,
  reportStatuses,
  reportUserRoles,
  reportVersions,
  scheduledReports,
} from "../../../tables/postgres/index.js";
import { REPORT_CHILD_TABLES } from "../../../tables/table-names.js";
import type { PoolClient } from "../pool.js";
import { batchInserter, run } from "../sql.js";
import { VersionHistory } from "./versions.js";

const CONTENT_KEYS = Object.keys(getTableColumns(scheduledReports)).filter(
  (k) => k !== "id" && k !== "firstSeenAt",
);

const upsert = batchInserter(scheduledReports, { upsertKeys: CONTENT_KEYS });

/** The content columns of a report row (what a replay writes again), by key, and their UPDATE. */
const REWRITE = (() => {
  const kept = new Set<string>(["id", ...REPORT_BOOKKEEPING]);
  const entries = Object.entries(getTableColumns(scheduledReports)).filter(([k]) => !kept.has(k));
  const sets = entries.map(([, c], i) => `"${c.name}" = $${i + 1}`).join(", ");
  return {
    keys: entries.map(([k]) => k),
    text: `UPDATE scheduled_reports SET ${sets} WHERE id = $${entries.length + 1}`,
  };
})();

async function writeChildren(db: PoolClient, n: ReportRowSet): Promise<void> {
  const id = n.report.id as number;
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
}
const children = {
  plans: batchInserter(reportPlans),
  recipients: batchInserter(reportRecipients),
  roles: batchInserter(reportUserRoles),
  statuses: batchInserter(reportStatuses),
  alerts: batchInserter(reportAlerts),
};

export class ReportWriter {
  readonly #versions = new VersionHistory(scheduledReports, reportVersions);

  constructor(
    private readonly at: string,
    private readonly runId: number,
  ) {}

  /** Insert or replace a report whose content is new; first_seen_at is kept on update. */
  async write(db: PoolClient, n: ReportRowSet, rawJson: string, contentHash: string) {
    const { at } = this;
    const id = n.report.id as number;
    await this.#versions.replace(db, [id], at);
    await upsert(db, [
      { ...n.report, rawJson, contentHash, firstSeenAt: at, lastSeenAt: at, deletedAt: null },
    ]);
    await writeChildren(db, n);
    await this.#versions.open(db, [{ id, contentHash }], at, this.runId);
  }

  /** A stored report's rows made again from its stored text (replay): no version, no sighting. */
  async renormalize(db: PoolClient, n: ReportRowSet): Promise<void> {
    const r = n.report as Record<string, unknown>;
    await run(db, REWRITE.text, [...REWRITE.keys.map((k) => r[k] ?? null), n.report.id]);
    await writeChildren(db, n);
  }

  /** Fetched again, unchanged: one request per report, one small update. */
  async touch(db: PoolClient, id: number): Promise<void> {
    await run(db, "UPDATE scheduled_reports SET last_seen_at = $1 WHERE id = $2", [this.at, id]);
  }

  /** A deleted report came back with the content it had. */
  async revive(db: PoolClient, id: number, contentHash: string): Promise<void> {
    await run(db, "UPDATE scheduled_reports SET deleted_at = NULL, last_seen_at = $1 WHERE id = $2", [
      this.at,
      id,
    ]);
    await this.#versions.open(db, [{ id, contentHash }], this.at, this.runId);
  }

  async markDeleted(db: PoolClient, id: number): Promise<void> {
    const { rowCount } = await run(
      db,
      "UPDATE scheduled_reports SET deleted_at = $1 WHERE id = $2 AND deleted_at IS NULL",
      [this.at, id],
    );
    if (rowCount > 0) await this.#versions.close(db, [id], this.at);
  }
}
