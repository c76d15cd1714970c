/** The push side: the outbox, the created scenarios, and rejected seed rows. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { REQUEST_STATUSES } from "../outbox-states.js";
import { bool } from "./columns.js";

export const scenarioRequests = sqliteTable(
  "scenario_requests",
  {
    key: text("key").primaryKey(),
    companyId: integer("company_id").notNull(),
    projectId: integer("project_id").notNull(),
    scenarioName: text("scenario_name").notNull(),
    payloadJson: text("payload_json").notNull(),
    parentKey: text("parent_key"),
    /** The state machine of ../outbox-states.ts. */
    status: text("status", { enum: REQUEST_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** Short reason code of a failure (PROJECT_NOT_FOUND, PARENT_FAILED, ...), for summaries. */
    errorCode: text("error_code"),
    scenarioId: integer("scenario_id"),
    /** Where scenario_id came from: answer (the create's answer), user (set-parent-id), inline-parent. */
    scenarioIdSource: text("scenario_id_source"),
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
    // No index on status: every status change would rewrite it (a third of a create's
    // cost); queries by status alone scan the outbox, which is cheap at its size.
    index("scenario_requests_parent_idx").on(t.parentKey),
    index("scenario_requests_batch_idx").on(t.batchId),
  ],
);

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
