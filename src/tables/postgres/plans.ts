/** Plans and their child tables (lists and maps of a plan become rows). */
import { boolean, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { id, num, ts } from "./columns.js";

export const plans = pgTable(
  "plans",
  {
    id: id("id").primaryKey(),
    companyId: id("company_id").notNull(),
    projectId: id("project_id"),
    planName: text("plan_name"),
    groupPlan: boolean("group_plan"),
    description: text("description"),
    enabled: boolean("enabled"),
    planParallelTestLimit: num("plan_parallel_test_limit"),
    alertsEnabled: boolean("alerts_enabled"),
    failedTestRetryCount: num("failed_test_retry_count"),
    screenShotType: text("screen_shot_type"),
    videoEnabled: boolean("video_enabled"),
    performanceDataEnabled: boolean("performance_data_enabled"),
    clearAppData: boolean("clear_app_data"),
    platform: text("platform", { enum: ["desktop", "mobile"] }).notNull(),
    periodType: text("period_type"),
    periodStartAt: ts("period_start_at"),
    periodEndAt: ts("period_end_at"),
    periodOnceAt: ts("period_once_at"),
    periodRepeatMinutes: num("period_repeat_minutes"),
    periodDaysOfWeek: text("period_days_of_week"),
    rawJson: text("raw_json").notNull(),
    contentHash: text("content_hash").notNull(),
    firstSeenAt: ts("first_seen_at").notNull(),
    /** The last sighting written on the row; v_plans.last_seen_at gives the true last sighting. */
    seenAt: ts("seen_at").notNull(),
    deletedAt: ts("deleted_at"),
  },
  // Covering: a sync loads its company's index (id, hash, deleted) by an index-only scan.
  (t) => [index("plans_company_index_idx").on(t.companyId, t.id, t.contentHash, t.deletedAt)],
);

export const planDaysOfWeek = pgTable(
  "plan_days_of_week",
  {
    planId: id("plan_id").notNull(),
    dayNumber: integer("day_number").notNull(),
    dayName: text("day_name").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.dayNumber] })],
);

export const planResolutions = pgTable(
  "plan_resolutions",
  {
    planId: id("plan_id").notNull(),
    os: text("os").notNull(),
    resolution: text("resolution").notNull(),
    width: num("width"),
    height: num("height"),
  },
  (t) => [primaryKey({ columns: [t.planId, t.os] })],
);

export const planEnvironments = pgTable(
  "plan_environments",
  {
    planId: id("plan_id").notNull(),
    environmentId: id("environment_id").notNull(),
    occurrences: integer("occurrences").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.environmentId] })],
);

export const planScenarios = pgTable(
  "plan_scenarios",
  {
    planId: id("plan_id").notNull(),
    scenarioId: id("scenario_id").notNull(),
    position: integer("position").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.planId, t.position] }),
    index("plan_scenarios_scenario_idx").on(t.scenarioId),
  ],
);

export const planAlerts = pgTable(
  "plan_alerts",
  {
    planId: id("plan_id").notNull(),
    position: integer("position").notNull(),
    json: text("json").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.position] })],
);

export const planFetchAppFiles = pgTable(
  "plan_fetch_app_files",
  {
    planId: id("plan_id").notNull(),
    position: integer("position").notNull(),
    json: text("json").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.position] })],
);

export const mobileApps = pgTable("mobile_apps", {
  id: id("id").primaryKey(),
  operatingSystem: text("operating_system"),
  mobileAppName: text("mobile_app_name"),
  mobileAppHash: text("mobile_app_hash"),
  createdAt: ts("created_at"),
  metadataJson: text("metadata_json"),
  metadataError: text("metadata_error"),
  /** The metadata parsed only once its `\'` (the service's escape of an apostrophe) was read as `'`. */
  metadataRepaired: boolean("metadata_repaired"),
  appId: text("app_id"),
  displayName: text("display_name"),
  versionName: text("version_name"),
  versionCode: num("version_code"),
  minOsVersion: text("min_os_version"),
  targetSdkVersion: text("target_sdk_version"),
});

export const planMobileApps = pgTable(
  "plan_mobile_apps",
  {
    planId: id("plan_id").notNull(),
    operatingSystem: text("operating_system").notNull(),
    mobileAppId: id("mobile_app_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.operatingSystem] })],
);
