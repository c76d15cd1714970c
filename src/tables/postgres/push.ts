/** The push side: the outbox, the created scenarios, and rejected seed rows. */
import { boolean, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { REQUEST_STATUSES } from "../outbox-states.js";
import { id, num, serialId, ts } from "./columns.js";

export const scenarioRequests = pgTable(
  "scenario_requests",
  {
    key: text("key").primaryKey(),
    companyId: id("company_id").notNull(),
    projectId: id("project_id").notNull(),
    scenarioName: text("scenario_name").notNull(),
    payloadJson: text("payload_json").notNull(),
    parentKey: text("parent_key"),
    /** The state machine of ../outbox-states.ts. */
    status: text("status", { enum: REQUEST_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** Short reason code of a failure (PROJECT_NOT_FOUND, PARENT_FAILED, ...), for summaries. */
    errorCode: text("error_code"),
    scenarioId: id("scenario_id"),
    /** Where scenario_id came from: answer (the create's answer), user (set-parent-id), inline-parent. */
    scenarioIdSource: text("scenario_id_source"),
    /** An attempt was sent and its answer not yet recorded (write-ahead, survives a crash). */
    inFlight: boolean("in_flight").notNull().default(false),
    /** Some earlier attempt may have reached the server: a name clash then means "exists". */
    uncertain: boolean("uncertain").notNull().default(false),
    /** The `tas-sync push` invocation that last recorded this row, and its file and line. */
    batchId: text("batch_id"),
    sourceFile: text("source_file"),
    sourceLine: integer("source_line"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
  },
  (t) => [
    // No index on status: every status change would rewrite it; queries by status alone
    // scan the outbox, which is cheap at its size.
    index("scenario_requests_parent_idx").on(t.parentKey),
    index("scenario_requests_batch_idx").on(t.batchId),
  ],
);

export const scenarios = pgTable(
  "scenarios",
  {
    id: id("id").primaryKey(),
    requestKey: text("request_key"),
    companyId: id("company_id"),
    projectId: id("project_id"),
    type: text("type"),
    scenarioName: text("scenario_name"),
    description: text("description"),
    enabled: boolean("enabled"),
    deleted: boolean("deleted"),
    testrailEnabled: boolean("testrail_enabled"),
    parentId: id("parent_id"),
    executeMode: text("execute_mode"),
    sourceFile: text("source_file"),
    maxExecutionTime: num("max_execution_time"),
    childsJson: text("childs_json"),
    parameterized: boolean("parameterized"),
    hasParameterizedClass: boolean("has_parameterized_class"),
    javaTestClass: text("java_test_class"),
    javaTestMethods: text("java_test_methods"),
    testScenarioJavaParametersJson: text("test_scenario_java_parameters_json"),
    isGroup: boolean("is_group"),
    rawJson: text("raw_json").notNull(),
    recordedAt: ts("recorded_at").notNull(),
  },
  (t) => [index("scenarios_project_idx").on(t.projectId, t.scenarioName)],
);

export const seedRejections = pgTable(
  "seed_rejections",
  {
    id: serialId("id"),
    batchId: text("batch_id").notNull(),
    sourceFile: text("source_file").notNull(),
    line: integer("line").notNull(),
    key: text("key"),
    field: text("field"),
    reason: text("reason").notNull(),
    recordedAt: ts("recorded_at").notNull(),
  },
  (t) => [index("seed_rejections_batch_idx").on(t.batchId)],
);
