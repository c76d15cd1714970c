/**
 * The relational shape of the mirror. Table and column names are a public interface:
 * every column is documented in README.md ("Table reference"). Timestamps are ISO 8601
 * UTC text with milliseconds; booleans are 0/1 integers.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, sqliteView, text } from "drizzle-orm/sqlite-core";

const bool = (name: string) => integer(name, { mode: "boolean" });

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
    lastSeenAt: text("last_seen_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (t) => [index("plans_company_idx").on(t.companyId)],
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

export const syncRuns = sqliteTable(
  "sync_runs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    companyId: integer("company_id").notNull(),
    trigger: text("trigger").notNull(),
    startedAt: text("started_at").notNull(),
    finishedAt: text("finished_at"),
    status: text("status", { enum: ["running", "succeeded", "partial", "failed"] }).notNull(),
    fetched: integer("fetched").notNull().default(0),
    inserted: integer("inserted").notNull().default(0),
    updated: integer("updated").notNull().default(0),
    unchanged: integer("unchanged").notNull().default(0),
    deleted: integer("deleted").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    error: text("error"),
  },
  (t) => [index("sync_runs_company_idx").on(t.companyId, t.startedAt)],
);

export const rejectedRecords = sqliteTable(
  "rejected_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: integer("run_id").notNull(),
    entity: text("entity", { enum: ["plan", "scheduled_report"] }).notNull(),
    entityId: integer("entity_id"),
    reason: text("reason").notNull(),
    rawJson: text("raw_json"),
  },
  (t) => [index("rejected_records_run_idx").on(t.runId)],
);

/** Per-record fetch errors that are not validation failures (a report answering 403, say). */
export const syncErrors = sqliteTable(
  "sync_errors",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: integer("run_id").notNull(),
    entity: text("entity", { enum: ["plans", "scheduled_report"] }).notNull(),
    entityId: integer("entity_id"),
    code: text("code").notNull(),
    httpStatus: integer("http_status"),
    message: text("message").notNull(),
  },
  (t) => [index("sync_errors_run_idx").on(t.runId)],
);

export const planVersions = sqliteTable(
  "plan_versions",
  {
    versionId: integer("version_id").primaryKey({ autoIncrement: true }),
    id: integer("id").notNull(),
    contentHash: text("content_hash").notNull(),
    validFrom: text("valid_from").notNull(),
    validTo: text("valid_to"),
    rawJson: text("raw_json").notNull(),
    runId: integer("run_id"),
  },
  (t) => [index("plan_versions_id_idx").on(t.id, t.validFrom)],
);

export const reportVersions = sqliteTable(
  "report_versions",
  {
    versionId: integer("version_id").primaryKey({ autoIncrement: true }),
    id: integer("id").notNull(),
    contentHash: text("content_hash").notNull(),
    validFrom: text("valid_from").notNull(),
    validTo: text("valid_to"),
    rawJson: text("raw_json").notNull(),
    runId: integer("run_id"),
  },
  (t) => [index("report_versions_id_idx").on(t.id, t.validFrom)],
);

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
export const scenarioRequests = sqliteTable(
  "scenario_requests",
  {
    key: text("key").primaryKey(),
    companyId: integer("company_id").notNull(),
    projectId: integer("project_id").notNull(),
    scenarioName: text("scenario_name").notNull(),
    payloadJson: text("payload_json").notNull(),
    parentKey: text("parent_key"),
    status: text("status", { enum: ["pending", "queued", "created", "exists", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** Short reason code of a failure (PROJECT_NOT_FOUND, PARENT_FAILED, ...), for summaries. */
    errorCode: text("error_code"),
    scenarioId: integer("scenario_id"),
    /** An attempt was sent and its answer not yet recorded (write-ahead, survives a crash). */
    inFlight: bool("in_flight").notNull().default(false),
    /** Some earlier attempt may have reached the server: a name clash then means "exists". */
    uncertain: bool("uncertain").notNull().default(false),
    /** The `tas-sync push` invocation that last recorded this row, and its file and line. */
    batchId: text("batch_id"),
    sourceFile: text("source_file"),
    sourceLine: integer("source_line"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("scenario_requests_status_idx").on(t.status),
    index("scenario_requests_parent_idx").on(t.parentKey),
    index("scenario_requests_batch_idx").on(t.batchId, t.status),
  ],
);

/** Every scenario the service created for us, as it answered (seed 2.1). */
export const scenarios = sqliteTable(
  "scenarios",
  {
    id: integer("id").primaryKey(),
    requestKey: text("request_key"),
    companyId: integer("company_id"),
    projectId: integer("project_id"),
    type: text("type"),
    scenarioName: text("scenario_name"),
    description: text("description"),
    enabled: bool("enabled"),
    deleted: bool("deleted"),
    testrailEnabled: bool("testrail_enabled"),
    parentId: integer("parent_id"),
    executeMode: text("execute_mode"),
    sourceFile: text("source_file"),
    maxExecutionTime: integer("max_execution_time"),
    childsJson: text("childs_json"),
    parameterized: bool("parameterized"),
    hasParameterizedClass: bool("has_parameterized_class"),
    javaTestClass: text("java_test_class"),
    javaTestMethods: text("java_test_methods"),
    testScenarioJavaParametersJson: text("test_scenario_java_parameters_json"),
    isGroup: bool("is_group"),
    rawJson: text("raw_json").notNull(),
    recordedAt: text("recorded_at").notNull(),
  },
  (t) => [index("scenarios_project_idx").on(t.projectId, t.scenarioName)],
);

/** Seed-file rows that were not queued (push --skip-invalid), with their reasons. */
export const seedRejections = sqliteTable(
  "seed_rejections",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    batchId: text("batch_id").notNull(),
    sourceFile: text("source_file").notNull(),
    line: integer("line").notNull(),
    key: text("key"),
    field: text("field"),
    reason: text("reason").notNull(),
    recordedAt: text("recorded_at").notNull(),
  },
  (t) => [index("seed_rejections_batch_idx").on(t.batchId)],
);

export type ScenarioRequestRow = typeof scenarioRequests.$inferSelect;
export type ScenarioRow = typeof scenarios.$inferInsert;
