/** Plans and their child tables (lists and maps of a plan become rows). */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool } from "./columns.js";

export const plans = sqliteTable(
  "plans",
  {
    id: integer("id").primaryKey(),
    companyId: integer("company_id").notNull(),
    projectId: integer("project_id"),
    planName: text("plan_name"),
    groupPlan: bool("group_plan"),
    description: text("description"),
    enabled: bool("enabled"),
    planParallelTestLimit: integer("plan_parallel_test_limit"),
    alertsEnabled: bool("alerts_enabled"),
    failedTestRetryCount: integer("failed_test_retry_count"),
    screenShotType: text("screen_shot_type"),
    videoEnabled: bool("video_enabled"),
    performanceDataEnabled: bool("performance_data_enabled"),
    clearAppData: bool("clear_app_data"),
    platform: text("platform", { enum: ["desktop", "mobile"] }).notNull(),
    periodType: text("period_type"),
    periodStartAt: text("period_start_at"),
    periodEndAt: text("period_end_at"),
    periodOnceAt: text("period_once_at"),
    periodRepeatMinutes: integer("period_repeat_minutes"),
    periodDaysOfWeek: text("period_days_of_week"),
    rawJson: text("raw_json").notNull(),
    contentHash: text("content_hash").notNull(),
    firstSeenAt: text("first_seen_at").notNull(),
    /**
     * The last sighting written on the row (insert, change, revival, deletion, or a list whose
     * deletions were held back). A live plan was also in every complete list since, which is not
     * repeated on each row: v_plans.last_seen_at gives the true last sighting.
     */
    seenAt: text("seen_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  // Covering: a sync loads its company's index (id, hash, deleted) from this index alone,
  // never reading the wide rows (raw_json).
  (t) => [index("plans_company_index_idx").on(t.companyId, t.id, t.contentHash, t.deletedAt)],
);

export const planDaysOfWeek = sqliteTable(
  "plan_days_of_week",
  {
    planId: integer("plan_id").notNull(),
    dayNumber: integer("day_number").notNull(),
    dayName: text("day_name").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.dayNumber] })],
);

export const planResolutions = sqliteTable(
  "plan_resolutions",
  {
    planId: integer("plan_id").notNull(),
    os: text("os").notNull(),
    resolution: text("resolution").notNull(),
    width: integer("width"),
    height: integer("height"),
  },
  (t) => [primaryKey({ columns: [t.planId, t.os] })],
);

export const planEnvironments = sqliteTable(
  "plan_environments",
  {
    planId: integer("plan_id").notNull(),
    environmentId: integer("environment_id").notNull(),
    occurrences: integer("occurrences").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.environmentId] })],
);

export const planScenarios = sqliteTable(
  "plan_scenarios",
  {
    planId: integer("plan_id").notNull(),
    scenarioId: integer("scenario_id").notNull(),
    position: integer("position").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.planId, t.position] }),
    index("plan_scenarios_scenario_idx").on(t.scenarioId),
  ],
);

export const planAlerts = sqliteTable(
  "plan_alerts",
  {
    planId: integer("plan_id").notNull(),
    position: integer("position").notNull(),
    json: text("json").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.position] })],
);

export const planFetchAppFiles = sqliteTable(
  "plan_fetch_app_files",
  {
    planId: integer("plan_id").notNull(),
    position: integer("position").notNull(),
    json: text("json").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.position] })],
);

export const mobileApps = sqliteTable("mobile_apps", {
  id: integer("id").primaryKey(),
  operatingSystem: text("operating_system"),
  mobileAppName: text("mobile_app_name"),
  mobileAppHash: text("mobile_app_hash"),
  createdAt: text("created_at"),
  metadataJson: text("metadata_json"),
  metadataError: text("metadata_error"),
  /** The metadata parsed only once its `\'` (the service's escape of an apostrophe) was read as `'`. */
  metadataRepaired: bool("metadata_repaired"),
  appId: text("app_id"),
  displayName: text("display_name"),
  versionName: text("version_name"),
  versionCode: integer("version_code"),
  minOsVersion: text("min_os_version"),
  targetSdkVersion: text("target_sdk_version"),
});

export const planMobileApps = sqliteTable(
  "plan_mobile_apps",
  {
    planId: integer("plan_id").notNull(),
    operatingSystem: text("operating_system").notNull(),
    mobileAppId: integer("mobile_app_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.planId, t.operatingSystem] })],
);
