/** Scheduled reports and their child tables. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool } from "./columns.js";

export const scheduledReports = sqliteTable(
  "scheduled_reports",
  {
    id: integer("id").primaryKey(),
    companyId: integer("company_id").notNull(),
    reportName: text("report_name"),
    contentMail: text("content_mail"),
    enabled: bool("enabled"),
    frequency: text("frequency"),
    createdUser: text("created_user"),
    usageGauge: bool("usage_gauge"),
    reportHour: text("report_hour"),
    startDate: text("start_date"),
    endDate: text("end_date"),
    rawJson: text("raw_json").notNull(),
    contentHash: text("content_hash").notNull(),
    firstSeenAt: text("first_seen_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [index("scheduled_reports_company_idx").on(t.companyId)],
);

export const reportPlans = sqliteTable(
  "report_plans",
  {
    reportId: integer("report_id").notNull(),
    planId: integer("plan_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.planId] }), index("report_plans_plan_idx").on(t.planId)],
);

export const reportRecipients = sqliteTable(
  "report_recipients",
  {
    reportId: integer("report_id").notNull(),
    email: text("email").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.email] })],
);

export const reportUserRoles = sqliteTable(
  "report_user_roles",
  {
    reportId: integer("report_id").notNull(),
    role: text("role").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.role] })],
);

export const reportStatuses = sqliteTable(
  "report_statuses",
  {
    reportId: integer("report_id").notNull(),
    status: text("status").notNull(),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.status] })],
);

export const reportAlerts = sqliteTable(
  "report_alerts",
  {
    reportId: integer("report_id").notNull(),
    position: integer("position").notNull(),
    alertType: text("alert_type"),
    alertSendingStatus: text("alert_sending_status"),
    target: text("target"),
    enabled: bool("enabled"),
    unsubscribeLinkEliminated: bool("unsubscribe_link_eliminated"),
  },
  (t) => [primaryKey({ columns: [t.reportId, t.position] })],
);
