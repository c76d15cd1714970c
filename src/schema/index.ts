/**
 * The relational shape of the mirror. Table and column names are a public interface:
 * every column is documented in README.md ("Table reference"). Timestamps are ISO 8601
 * UTC text with milliseconds; booleans are 0/1 integers.
 */

export * from "./tables/history.js";
export * from "./tables/plans.js";
export * from "./tables/push.js";
export * from "./tables/reports.js";
export * from "./tables/runs.js";
export * from "./tables/views.js";

import type {
  mobileApps,
  planAlerts,
  planDaysOfWeek,
  planEnvironments,
  planMobileApps,
  planResolutions,
  planScenarios,
  plans,
} from "./tables/plans.js";
import type { scenarioRequests, scenarios } from "./tables/push.js";
import type { reportAlerts, scheduledReports } from "./tables/reports.js";
import type { syncRuns } from "./tables/runs.js";

/** Per-record fetch errors that are not validation failures (a report answering 403, say). */
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
export type SyncRunRow = typeof syncRuns.$inferSelect;
/** The push outbox: one row per seed-file row, keyed by its idempotency key. */
/** Every scenario the service created for us, as it answered (seed 2.1). */
/** Seed-file rows that were not queued (push --skip-invalid), with their reasons. */
export type ScenarioRequestRow = typeof scenarioRequests.$inferSelect;
export type ScenarioRow = typeof scenarios.$inferInsert;
