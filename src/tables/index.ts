/**
 * The relational shape of the mirror. Table and column names are a public interface: every
 * column is documented in docs/reference/tables.md (words: ./descriptions.ts). One drizzle schema per dialect
 * (./sqlite, ./postgres) with the same table and column names; the row types below are the
 * dialect-neutral shapes the pipeline passes to the store (timestamps as ISO 8601 UTC text,
 * booleans as booleans). test/unit/schema-parity.test.ts holds the two schemas together.
 */
import type {
  mobileApps,
  planAlerts,
  planDaysOfWeek,
  planEnvironments,
  planMobileApps,
  planResolutions,
  planScenarios,
  plans,
  reportAlerts,
  scenarioRequests,
  scenarios,
  scheduledReports,
} from "./sqlite/index.js";

export type PlanRow = typeof plans.$inferInsert;
export type PlanDayRow = typeof planDaysOfWeek.$inferInsert;
export type PlanResolutionRow = typeof planResolutions.$inferInsert;
export type PlanEnvironmentRow = typeof planEnvironments.$inferInsert;
export type PlanScenarioRow = typeof planScenarios.$inferInsert;
export type PlanJsonItemRow = typeof planAlerts.$inferInsert;
export type MobileAppRow = typeof mobileApps.$inferInsert;
export type PlanMobileAppRow = typeof planMobileApps.$inferInsert;
export type ReportRow = typeof scheduledReports.$inferInsert;
export type ReportAlertRow = typeof reportAlerts.$inferInsert;
/** The push outbox: one row per seed-file row, keyed by its idempotency key. */
export type ScenarioRequestRow = typeof scenarioRequests.$inferSelect;
/** Every scenario the service created for us, as it answered (seed 2.1). */
export type ScenarioRow = typeof scenarios.$inferInsert;

/** Columns of `plans` the store fills in (bookkeeping), by key; the others come from the record. */
export const PLAN_BOOKKEEPING = [
  "rawJson",
  "contentHash",
  "firstSeenAt",
  "seenAt",
  "deletedAt",
] as const satisfies readonly (keyof PlanRow)[];
/** Columns of `scheduled_reports` the store fills in, by key. */
export const REPORT_BOOKKEEPING = [
  "rawJson",
  "contentHash",
  "firstSeenAt",
  "lastSeenAt",
  "deletedAt",
] as const satisfies readonly (keyof ReportRow)[];

/** Columns of `plans` that come from the record itself. */
export type PlanColumns = Omit<PlanRow, (typeof PLAN_BOOKKEEPING)[number]>;
/** Columns of `scheduled_reports` that come from the record itself. */
export type ReportColumns = Omit<ReportRow, (typeof REPORT_BOOKKEEPING)[number]>;

/** One plan as rows: its `plans` columns and its child tables' rows. */
export interface PlanRowSet {
  plan: PlanColumns;
  days: PlanDayRow[];
  resolutions: PlanResolutionRow[];
  environments: PlanEnvironmentRow[];
  scenarios: PlanScenarioRow[];
  alerts: PlanJsonItemRow[];
  fetchAppFiles: PlanJsonItemRow[];
  /** Distinct mobile app records referenced by the plan (upserted by id). */
  mobileApps: MobileAppRow[];
  planMobileApps: PlanMobileAppRow[];
}

/** One scheduled report as rows: its `scheduled_reports` columns and its lists. */
export interface ReportRowSet {
  report: ReportColumns;
  planIds: number[];
  recipients: string[];
  userRoles: string[];
  statuses: string[];
  alerts: ReportAlertRow[];
}
