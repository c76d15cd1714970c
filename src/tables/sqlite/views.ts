/** Views for SQL users. */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { integer, real, sqliteView, text } from "drizzle-orm/sqlite-core";
import { bool } from "./columns.js";
import { planVersions, reportVersions } from "./history.js";
import { plans } from "./plans.js";
import { scheduledReports } from "./reports.js";
import { rejectedRecords, syncState, unlistedPlans } from "./runs.js";

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
 * Plans with `last_seen_at`: the last list that held the plan. A live plan was in every list of
 * its company that was applied (sync_state.plans_seen_at), which the plans rows do not repeat,
 * unless a list lacked it (unlisted_plans keeps its last sighting then).
 */
export const vPlans = sqliteView("v_plans").as((qb) =>
  qb
    .select({
      ...getTableColumns(plans),
      lastSeenAt: sql<string>`CASE WHEN ${plans.deletedAt} IS NOT NULL THEN ${plans.seenAt}
        WHEN ${unlistedPlans.lastSeenAt} IS NOT NULL THEN ${unlistedPlans.lastSeenAt}
        WHEN ${syncState.plansSeenAt} > ${plans.seenAt} THEN ${syncState.plansSeenAt} ELSE ${plans.seenAt} END`
        .mapWith(plans.seenAt)
        .as("last_seen_at"),
    })
    .from(plans)
    .leftJoin(syncState, eq(syncState.companyId, plans.companyId))
    .leftJoin(unlistedPlans, eq(unlistedPlans.planId, plans.id)),
);

/**
 * What is rejected now: the rejection episodes that the company's newest sync (not a replay)
 * extended or began (sync_state.rejections_run_id). `first_seen_at` says since when.
 */
export const vRejectedNow = sqliteView("v_rejected_now").as((qb) =>
  qb
    .select(getTableColumns(rejectedRecords))
    .from(rejectedRecords)
    .innerJoin(
      syncState,
      and(
        eq(syncState.companyId, rejectedRecords.companyId),
        eq(syncState.rejectionsRunId, rejectedRecords.lastRunId),
      ),
    ),
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

/** The observed schema for people: one row per path with its types in one text. */
export const vSchema = sqliteView("v_schema", {
  companyId: integer("company_id").notNull(),
  entity: text("entity").notNull(),
  path: text("path").notNull(),
  types: text("types").notNull(),
  present: integer("present").notNull(),
  entityCount: integer("entity_count"),
  valuesCapped: bool("values_capped").notNull(),
  minNumber: real("min_number"),
  maxNumber: real("max_number"),
  firstSeenAt: text("first_seen_at"),
  lastSeenAt: text("last_seen_at"),
}).as(
  sql`SELECT p.company_id, p.entity, p.path,
        concat_ws(',', CASE WHEN p.n_string > 0 THEN 'string' END, CASE WHEN p.n_integer > 0 THEN 'integer' END,
          CASE WHEN p.n_number > 0 THEN 'number' END, CASE WHEN p.n_boolean > 0 THEN 'boolean' END,
          CASE WHEN p.n_null > 0 THEN 'null' END, CASE WHEN p.n_object > 0 THEN 'object' END,
          CASE WHEN p.n_array > 0 THEN 'array' END) AS types,
        p.present, e.present AS entity_count, p.values_capped, p.min_number, p.max_number,
        p.first_seen_at, p.last_seen_at
      FROM schema_paths p
      LEFT JOIN schema_paths e ON e.company_id = p.company_id AND e.entity = p.entity AND e.path = ''
      WHERE p.path <> ''`,
);
