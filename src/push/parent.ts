/** Builds the request's parent object (seed 2.1.1) from a created scenario (pure). */
import type { CreateScenarioBody, WireParentScenario, WireScenario } from "../wire/schemas.js";

export function parentObject(s: WireScenario): WireParentScenario {
  return {
    id: s.id,
    type: s.type ?? null,
    scenario_name: s.scenario_name ?? null,
    description: s.description ?? null,
    enabled: s.enabled ?? true,
    deleted: s.deleted ?? false,
    test_management_enabled: s.testrail_enabled ?? false,
    execute_mode: s.execute_mode ?? null,
    project_id: s.project_id ?? null,
    parameterized: s.parameterized ?? false,
    has_parameterized_class: s.has_parameterized_class ?? false,
    test_scenario_java_parameters: s.test_scenario_java_parameters ?? [],
    // It becomes a group scenario by having children (API-FACTS: the parent is a group).
    group: true,
    childs: s.childs ?? [],
  };
}

/**
 * The parent object of a scenario whose id we know but whose create answer we never had (the
 * user gave it, or another row's inline parent did): its fields come from its own request.
 */
export function parentFromRequest(body: CreateScenarioBody, id: number): WireParentScenario {
  return {
    id,
    type: null,
    scenario_name: body.scenario_name,
    description: body.description ?? null,
    enabled: true,
    deleted: false,
    test_management_enabled: body.testrail_enabled ?? false,
    execute_mode: null,
    project_id: body.project_id,
    parameterized: false,
    has_parameterized_class: false,
    test_scenario_java_parameters: [],
    group: true,
    childs: [],
  };
}

/** Row of the `scenarios` table from the service's answer (pure). */
export function scenarioRow(
  s: WireScenario,
  rawJson: string,
  requestKey: string,
  companyId: number,
  now: string,
) {
  const parent = s.parent && "id" in s.parent ? (s.parent.id as number) : null;
  return {
    id: s.id,
    requestKey,
    companyId,
    projectId: s.project_id ?? null,
    type: s.type ?? null,
    scenarioName: s.scenario_name ?? null,
    description: s.description ?? null,
    enabled: s.enabled ?? null,
    deleted: s.deleted ?? null,
    testrailEnabled: s.testrail_enabled ?? null,
    parentId: parent,
    executeMode: s.execute_mode ?? null,
    sourceFile: s.source_file ?? null,
    maxExecutionTime: s.max_execution_time ?? null,
    childsJson: s.childs ? JSON.stringify(s.childs) : null,
    parameterized: s.parameterized ?? null,
    hasParameterizedClass: s.has_parameterized_class ?? null,
    javaTestClass: s.java_test_class ?? null,
    javaTestMethods: s.java_test_methods ?? null,
    testScenarioJavaParametersJson: s.test_scenario_java_parameters
      ? JSON.stringify(s.test_scenario_java_parameters)
      : null,
    isGroup: s.group ?? null,
    rawJson,
    recordedAt: now,
  };
}
