/** Scheduled reports and their child tables. */
import { boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { id, ts } from "./columns.js";

export const scheduledReports = pgTable(
  "scheduled_reports",
  {
    id: id("id").primaryKey(),
    companyId: id("company_id").notNull(),
    reportName: text("report_name"),
    contentMail: text("content_mail"),
    enabled: boolean("enabled"),
    frequency: text("frequency"),
    createdUser: text("created_user"),
    usageGauge: boolean("usage_gauge"),
    // Text, not timestamptz: the service's value is kept as it came when it is not a valid
    // ISO date-time (normalize/time.ts isoToUtc), which a timestamptz column would refuse.
    reportHour: text("report_hour"),
    startDate: text("start_date"),
    endDate: text("end_date"),
    rawJson: text("raw_json").notNull(),
    contentHash: text("content_hash").notNull(),
    firstSeenAt: ts("first_seen_at").notNull(),
    lastSeenAt: ts("last_seen_at").notNull(),
    deletedAt: ts("deleted_at"),
  },
  (t) => [index("scheduled_reports_company_idx").on(t.companyId)],
);

export const reportPlans = pgTable(
  "report_plans",
  {
    reportId: id("report_id").notNull(),
    planId: id("plan_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.planId] }), index("report_plans_plan_idx").on(t.planId)],
);

export const reportRecipients = pgTable(
  "report_recipients",
  {
    reportId: id("report_id").notNull(),
    email: text("email").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.email] })],
);

export const reportUserRoles = pgTable(
  "report_user_roles",
  {
    reportId: id("report_id").notNull(),
    role: text("role").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.role] })],
);

export const reportStatuses = pgTable(
  "report_statuses",
  {
    reportId: id("report_id").notNull(),
    status: text("status").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.status] })],
);

export const reportAlerts = pgTable(
  "report_alerts",
  {
    reportId: id("report_id").notNull(),
    position: integer("position").notNull(),
    alertType: text("alert_type"),
    alertSendingStatus: text("alert_sending_status"),
    target: text("target"),
    enabled: boolean("enabled"),
    unsubscribeLinkEliminated: boolean("unsubscribe_link_eliminated"),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.position] })],
);
