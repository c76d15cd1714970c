/** Views for SQL users. */
import { sql } from "drizzle-orm";
import { integer, sqliteView, text } from "drizzle-orm/sqlite-core";
import { bool } from "./columns.js";

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
