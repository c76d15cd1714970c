/** Views for SQL users. */
import { eq, getTableColumns, sql } from "drizzle-orm";
import { integer, sqliteView, text } from "drizzle-orm/sqlite-core";
import { bool } from "./columns.js";
import { planVersions, reportVersions } from "./history.js";
import { plans } from "./plans.js";
import { scheduledReports } from "./reports.js";
import { syncState } from "./runs.js";

export const vReportPlanCoverage = sqliteView("v_report_plan_coverage", {
  reportId: integer("report_id").notNull(),
  companyId: integer("company_id").notNull(),
  reportName: text("report_name"),
  planId: integer("plan_id").notNull(),
  planName: text("plan_name"),
  planDeletedAt: text("plan_deleted_at"),
  dangling: bool("dangling").notNull(),
}).as(
  sql`SELECT r.id AS report_id, r.company_id, r.report_name, rp.plan_id, p.plan_name,
        p.deleted_at AS plan_deleted_at,
        CASE WHEN p.id IS NULL THEN 1 ELSE 0 END AS dangling
      FROM scheduled_reports r
      JOIN report_plans rp ON rp.report_id = r.id
      LEFT JOIN plans p ON p.id = rp.plan_id AND p.company_id = r.company_id
      WHERE r.deleted_at IS NULL`,
);

export const vPlanSchedule = sqliteView("v_plan_schedule", {
  planId: integer("plan_id").notNull(),
  companyId: integer("company_id").notNull(),
  projectId: integer("project_id"),
  planName: text("plan_name"),
  enabled: bool("enabled"),
  platform: text("platform").notNull(),
  periodType: text("period_type"),
  periodStartAt: text("period_start_at"),
  periodEndAt: text("period_end_at"),
  periodOnceAt: text("period_once_at"),
  periodRepeatMinutes: integer("period_repeat_minutes"),
  periodDaysOfWeek: text("period_days_of_week"),
  dayNames: text("day_names"),
}).as(
  sql`SELECT p.id AS plan_id, p.company_id, p.project_id, p.plan_name, p.enabled, p.platform,
        p.period_type, p.period_start_at, p.period_end_at, p.period_once_at, p.period_repeat_minutes,
        p.period_days_of_week,
        (SELECT group_concat(day_name, ',') FROM
           (SELECT d.day_name FROM plan_days_of_week d WHERE d.plan_id = p.id ORDER BY d.day_number)) AS day_names
      FROM plans p
      WHERE p.deleted_at IS NULL`,
);

/**
 * Plans with `last_seen_at`: the last list that held the plan. A live plan was in every complete
 * list of its company (sync_state.plans_listed_at), which the plans rows do not repeat.
 */
export const vPlans = sqliteView("v_plans").as((qb) =>
  qb
    .select({
      ...getTableColumns(plans),
      lastSeenAt:
        sql<string>`CASE WHEN ${plans.deletedAt} IS NULL AND ${syncState.plansListedAt} > ${plans.seenAt}
        THEN ${syncState.plansListedAt} ELSE ${plans.seenAt} END`
          .mapWith(plans.seenAt)
          .as("last_seen_at"),
    })
    .from(plans)
    .leftJoin(syncState, eq(syncState.companyId, plans.companyId)),
);

/** Every version of a record with its JSON text (the current content's text lives in the record's row). */
function versionsView<N extends string>(
  name: N,
  versions: typeof planVersions,
  records: typeof plans | typeof scheduledReports,
) {
  return sqliteView(name).as((qb) =>
    qb
      .select({
        ...getTableColumns(versions),
        rawJson: sql<string>`coalesce(${versions.rawJson}, ${records.rawJson})`
          .mapWith(records.rawJson)
          .as("raw_json"),
      })
      .from(versions)
      .leftJoin(records, eq(records.id, versions.id)),
  );
}

export const vPlanVersions = versionsView("v_plan_versions", planVersions, plans);
// The two history tables have the same columns (one helper makes both); only their names differ.
export const vReportVersions = versionsView(
  "v_report_versions",
  reportVersions as unknown as typeof planVersions,
  scheduledReports,
);
