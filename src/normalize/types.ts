/** Row shapes produced by the pure normalizers; the store writes them as they are. */
import type {
  MobileAppRow,
  PlanDayRow,
  PlanEnvironmentRow,
  PlanJsonItemRow,
  PlanMobileAppRow,
  PlanResolutionRow,
  PlanRow,
  PlanScenarioRow,
  ReportAlertRow,
  ReportRow,
} from "../schema/index.js";

/** Columns of `plans` that come from the record itself (bookkeeping columns are the store's). */
export type PlanColumns = Omit<
  PlanRow,
  "rawJson" | "contentHash" | "firstSeenAt" | "lastSeenAt" | "deletedAt"
>;
export type ReportColumns = Omit<
  ReportRow,
  "rawJson" | "contentHash" | "firstSeenAt" | "lastSeenAt" | "deletedAt"
>;

export interface NormalizedPlan {
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

export interface NormalizedReport {
  report: ReportColumns;
  planIds: number[];
  recipients: string[];
  userRoles: string[];
  statuses: string[];
  alerts: ReportAlertRow[];
}
