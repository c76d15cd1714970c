/**
 * Scenarios created through the simulator, and their wire shape (seed 2.1, 2.1.1). Names are
 * unique per project, which is what makes a retried create detectable (INVALID_SCENARIO_NAME),
 * unless the namesNotUnique fault says otherwise. Every scenario created is counted by its
 * (project, name), so a test sees a scenario made twice whether or not the name check ran.
 */

/** Created ids start high so they never collide with the scenario ids listed in plans. */
const FIRST_SCENARIO_ID = 1_000_001;

export interface StoredScenario {
  id: number;
  companyId: number;
  projectId: number;
  scenarioName: string;
  description: string;
  sourceFile: string;
  testrailEnabled: boolean;
  maxExecutionTime: number;
  javaTestMethods: string;
  parentId: number | null;
  createdAtMs: number;
  /** Becomes true once a child is created under it. */
  group: boolean;
}

export type NewScenario = Omit<StoredScenario, "id" | "createdAtMs" | "group">;

/** Row of GET __admin/scenarios. */
export interface AdminScenario {
  id: number;
  project_id: number;
  company_id: number;
  scenario_name: string;
  parent_id: number | null;
  created_at_ms: number;
}

/** java_test_class is source_file without its extension ("Works.spec" gives "Works"). */
function javaTestClass(sourceFile: string): string {
  const dot = sourceFile.lastIndexOf(".");
  return dot > 0 ? sourceFile.slice(0, dot) : sourceFile;
}

export class ScenarioStore {
  private nextId = FIRST_SCENARIO_ID;
  private readonly byId = new Map<number, StoredScenario>();
  private readonly namesByProject = new Map<number, Set<string>>();
  /** POST create requests seen, including failed, faulted and dropped ones. */
  attempts = 0;
  /** Scenarios created, by "<project_id>/<scenario_name>" (GET __admin/creates). */
  private readonly created = new Map<string, number>();

  get(id: number): StoredScenario | undefined {
    return this.byId.get(id);
  }

  hasName(projectId: number, name: string): boolean {
    return this.namesByProject.get(projectId)?.has(name) ?? false;
  }

  create(input: NewScenario, nowMs: number): StoredScenario {
    const scenario: StoredScenario = { ...input, id: this.nextId++, createdAtMs: nowMs, group: false };
    this.byId.set(scenario.id, scenario);
    let names = this.namesByProject.get(input.projectId);
    if (!names) {
      names = new Set();
      this.namesByProject.set(input.projectId, names);
    }
    names.add(input.scenarioName);
    const key = `${input.projectId}/${input.scenarioName}`;
    this.created.set(key, (this.created.get(key) ?? 0) + 1);
    const parent = input.parentId === null ? undefined : this.byId.get(input.parentId);
    if (parent) parent.group = true;
    return scenario;
  }

  /** How many scenarios were created with each (project, name): "<project_id>/<name>" -> n. */
  createsByName(): Record<string, number> {
    return Object.fromEntries(this.created);
  }

  list(): StoredScenario[] {
    return [...this.byId.values()];
  }

  adminList(): AdminScenario[] {
    return this.list().map((s) => ({
      id: s.id,
      project_id: s.projectId,
      company_id: s.companyId,
      scenario_name: s.scenarioName,
      parent_id: s.parentId,
      created_at_ms: s.createdAtMs,
    }));
  }

  /** The parent object as the service echoes it (seed 2.1.1). */
  parentWire(s: StoredScenario): Record<string, unknown> {
    return { ...common(s), test_management_enabled: s.testrailEnabled };
  }

  /** The full scenario returned by the create operation (seed 2.1). */
  wire(s: StoredScenario): Record<string, unknown> {
    const parent = s.parentId === null ? undefined : this.byId.get(s.parentId);
    return {
      ...common(s),
      testrail_enabled: s.testrailEnabled,
      parent: parent ? this.parentWire(parent) : undefined,
      source_file: s.sourceFile,
      max_execution_time: s.maxExecutionTime,
      childs: [],
      java_test_class: javaTestClass(s.sourceFile),
      java_test_methods: s.javaTestMethods,
    };
  }
}

/** The fields a scenario and its parent object share (seed 2.1, 2.1.1). */
function common(s: StoredScenario): Record<string, unknown> {
  return {
    id: s.id,
    type: "SELENIUM",
    scenario_name: s.scenarioName,
    description: s.description,
    enabled: true,
    deleted: false,
    execute_mode: "AUTOMATED",
    project_id: s.projectId,
    parameterized: false,
    has_parameterized_class: false,
    test_scenario_java_parameters: [],
    group: s.group,
  };
}
