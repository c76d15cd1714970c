/**
 * Zod schemas of the service's wire format (seed sections 2.x, API-FACTS.md).
 * Every enum is open (plain strings). Unknown fields are not an error; the raw JSON
 * text of each record is stored beside the parsed columns, so nothing is lost.
 * Optional fields accept null as well as absence: the service is a Java backend.
 */
import { z } from "zod";

const int = z.number().int();
const opt = <T extends z.ZodType>(t: T) => t.nullish();

/**
 * A JSON object of strings, every own key a value like any other: "__proto__", "constructor"
 * and "prototype" included (JSON.parse makes them plain own keys, and the reader keeps them as
 * rows). Not z.record: zod 4 skips a "__proto__" key there, its value unchecked and dropped.
 */
const stringMap = z.custom<Record<string, string>>(
  (v) =>
    typeof v === "object" &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v as object).every((s) => typeof s === "string"),
  { message: "expected an object of strings" },
);

const periodSchema = z.looseObject({
  period_type: opt(z.string()),
  start_date: opt(int),
  end_date: opt(int),
  once_date: opt(int),
  days_of_week: opt(z.string()),
  repeat_period: opt(int),
});

export const mobileAppSchema = z.looseObject({
  id: int,
  mobile_app_name: opt(z.string()),
  mobile_app_hash: opt(z.string()),
  operating_system: opt(z.string()),
  mobile_app_metadata: opt(z.string()),
  created_at: opt(z.string()),
});

export const planSchema = z.looseObject({
  id: int,
  project_id: opt(int),
  company_id: int,
  plan_name: opt(z.string()),
  group_plan: opt(z.boolean()),
  description: opt(z.string()),
  enabled: opt(z.boolean()),
  plan_parallel_test_limit: opt(int),
  scenarios: opt(z.array(int)),
  period: opt(periodSchema),
  alerts: opt(z.array(z.unknown())),
  alerts_enabled: opt(z.boolean()),
  failed_test_retry_count: opt(int),
  screen_shot_type: opt(z.string()),
  video_enabled: opt(z.boolean()),
  environments: opt(z.array(z.looseObject({ id: int }))),
  performance_data_enabled: opt(z.boolean()),
  resolutions: opt(stringMap),
  clear_app_data: opt(z.boolean()),
  fetch_app_files: opt(z.array(z.unknown())),
  selected_android_mobile_app: opt(mobileAppSchema),
  selected_ios_mobile_app: opt(mobileAppSchema),
});

const reportAlertSchema = z.looseObject({
  alert_type: opt(z.string()),
  alert_sending_status: opt(z.string()),
  target: opt(z.string()),
  enabled: opt(z.boolean()),
  unsubscribe_link_eliminated: opt(z.boolean()),
});

export const scheduledReportSchema = z.looseObject({
  id: int,
  report_name: opt(z.string()),
  content_mail: opt(z.string()),
  user_roles: opt(z.array(z.string())),
  enabled: opt(z.boolean()),
  frequency: opt(z.string()),
  created_user: opt(z.string()),
  status: opt(z.array(z.string())),
  usage_gauge: opt(z.boolean()),
  report_hour: opt(z.string()),
  plan_id_list: opt(z.array(int)),
  start_date: opt(z.string()),
  end_date: opt(z.string()),
  email_list: opt(z.array(z.string())),
  alerts: opt(z.array(reportAlertSchema)),
});

/** The fields a scenario and its parent object share (seed 2.1, 2.1.1). */
const scenarioCore = {
  id: int,
  type: opt(z.string()),
  scenario_name: opt(z.string()),
  description: opt(z.string()),
  enabled: opt(z.boolean()),
  deleted: opt(z.boolean()),
  execute_mode: opt(z.string()),
  project_id: opt(int),
  parameterized: opt(z.boolean()),
  has_parameterized_class: opt(z.boolean()),
  test_scenario_java_parameters: opt(z.array(z.unknown())),
  group: opt(z.boolean()),
  childs: opt(z.array(z.unknown())),
};

/** The parent object of a create-scenario request (seed 2.1.1). */
export const parentScenarioSchema = z.looseObject({
  ...scenarioCore,
  test_management_enabled: opt(z.boolean()),
});

/** Body of POST /api/projects/{projectId}/scenarios (seed 4.1), wire names. */
export const createScenarioBodySchema = z.object({
  project_id: int.positive(),
  testrail_enabled: opt(z.boolean()),
  jira_enabled: opt(z.boolean()),
  xray_enabled: opt(z.boolean()),
  source_file: z.string().min(1),
  // Blank is refused (the service would store a name nobody can see); the name is sent as written.
  scenario_name: z
    .string()
    .min(1)
    .refine((name) => name.trim() !== "", "must not be blank"),
  description: opt(z.string()),
  parent: opt(parentScenarioSchema),
  max_execution_time: opt(int),
  java_test_methods: opt(z.string()),
});

/** A created scenario (seed 2.1). */
export const scenarioSchema = z.looseObject({
  ...scenarioCore,
  testrail_enabled: opt(z.boolean()),
  parent: opt(z.union([parentScenarioSchema, z.object({})])),
  source_file: opt(z.string()),
  max_execution_time: opt(int),
  java_test_class: opt(z.string()),
  java_test_methods: opt(z.string()),
});

export const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: opt(z.string()),
  refresh_token: opt(z.string()),
  expires_in: opt(z.number()),
  scope: opt(z.string()),
});

export type WirePlan = z.infer<typeof planSchema>;
export type WireMobileApp = z.infer<typeof mobileAppSchema>;
export type WireReport = z.infer<typeof scheduledReportSchema>;
export type WireScenario = z.infer<typeof scenarioSchema>;
export type WireParentScenario = z.infer<typeof parentScenarioSchema>;
export type CreateScenarioBody = z.infer<typeof createScenarioBodySchema>;
