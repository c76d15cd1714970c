/**
 * One record to one candidate row: key, company, aliases mapped, body checked with the
 * wire schema. Every bad field of the row is reported, one problem per field.
 *
 * Unknown fields are ignored in every format (a seed file may carry columns for people,
 * like "owner" or "notes"); the known fields are type-checked strictly. Null means absent.
 */
import type { z } from "zod";
import { type CreateScenarioBody, createScenarioBodySchema } from "../wire/schemas.js";
import { ALIASES, jsonTypeName } from "./fields.js";
import type { FieldProblem, RawRecord, SeedOptions } from "./types.js";

export interface Candidate {
  line: number;
  key: string | null;
  companyId: number | null;
  projectId: number | null;
  scenarioName: string | null;
  parentKey: string | null;
  body: CreateScenarioBody | null;
  /** Empty when the row is valid on its own; the graph checks (parents, duplicates) add more. */
  problems: FieldProblem[];
}

export function toCandidate(record: RawRecord, opts: SeedOptions): Candidate {
  const { line, fields } = record;
  const problems = new Problems(record.problems);
  if (fields === null) {
    return {
      line,
      key: null,
      companyId: null,
      projectId: null,
      scenarioName: null,
      parentKey: null,
      body: null,
      problems: problems.list,
    };
  }

  const key = readKey(fields, "key", problems) ?? defaultKey(fields);
  const parentKey = readKey(fields, "parent_key", problems);
  const companyId = readCompanyId(fields, opts, problems);

  const { input, aliasOf } = bodyInput(fields, problems);
  if (isEmptyObject(input.parent)) delete input.parent; // an empty parent means none, as in responses
  if (input.parent != null && parentKey !== null) {
    problems.add("parent_key", "give either an inline parent or a parent_key, not both");
  }

  const parsed = createScenarioBodySchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [head, ...rest] = issue.path.map(String);
      const name = head === undefined ? null : [aliasOf.get(head) ?? head, ...rest].join(".");
      problems.add(name, describeIssue(issue, input));
    }
  }
  const body = parsed.success ? parsed.data : null;
  const parentProject = body?.parent?.project_id;
  if (body !== null && parentProject != null && parentProject !== body.project_id) {
    problems.add(
      "parent.project_id",
      `the parent is in project ${parentProject}, this row is in project ${body.project_id}`,
    );
  }

  if (problems.list.length === 0 && companyId !== null && opts.companies && !opts.companies.has(companyId))
    problems.add("company_id", `company ${companyId} is not in the config`);

  return {
    line,
    key,
    companyId,
    projectId: Number.isInteger(fields.project_id) ? (fields.project_id as number) : null,
    scenarioName: typeof fields.scenario_name === "string" ? fields.scenario_name : null,
    parentKey,
    body,
    problems: problems.list,
  };
}

/** Problems of one row, at most one per field: the first reason found is the most specific. */
class Problems {
  readonly list: FieldProblem[];
  private readonly fields = new Set<string | null>();
  constructor(initial: FieldProblem[]) {
    this.list = [...initial];
    for (const p of initial) this.fields.add(p.field);
  }
  add(field: string | null, reason: string): void {
    if (field !== null && this.fields.has(field)) return;
    this.fields.add(field);
    this.list.push({ field, reason });
  }
}

/** `key` and `parent_key`: strings, or numbers written without quotes. */
function readKey(fields: Record<string, unknown>, name: string, problems: Problems): string | null {
  const v = fields[name];
  if (v == null) return null;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "string" && v !== "") return v;
  problems.add(name, v === "" ? "must not be empty" : `expected string, got ${jsonTypeName(v)}`);
  return null;
}

/** `<project_id>/<scenario_name>`, also for rows invalid otherwise, so their children can name them. */
function defaultKey(fields: Record<string, unknown>): string | null {
  const { project_id: project, scenario_name: name } = fields;
  const projectOk = (typeof project === "number" || typeof project === "string") && project !== "";
  return projectOk && typeof name === "string" && name !== "" ? `${project}/${name}` : null;
}

function readCompanyId(
  fields: Record<string, unknown>,
  opts: SeedOptions,
  problems: Problems,
): number | null {
  const v = fields.company_id;
  if (v == null) {
    if (opts.defaultCompanyId !== undefined) return opts.defaultCompanyId;
    problems.add("company_id", "missing required field (the config has more than one company)");
    return null;
  }
  if (Number.isSafeInteger(v)) return v as number;
  problems.add("company_id", `expected integer, got ${jsonTypeName(v)}`);
  return null;
}

/** Only the body's own fields go to the schema: picking them is faster than copying the row. */
const BODY_FIELDS = Object.keys(createScenarioBodySchema.shape);

/** The body input with neutral names mapped to wire names, and the wire name -> alias used. */
function bodyInput(fields: Record<string, unknown>, problems: Problems) {
  const input: Record<string, unknown> = {};
  for (const name of BODY_FIELDS) {
    const value = fields[name];
    if (value !== undefined) input[name] = value;
  }
  const aliasOf = new Map<string, string>();
  for (const [alias, wire] of ALIASES) {
    const value = fields[alias];
    if (value == null) continue;
    const wireValue = input[wire];
    if (wireValue != null && wireValue !== value) {
      problems.add(alias, `conflicts with ${wire} (${shown(wireValue)} vs ${shown(value)})`);
      continue;
    }
    input[wire] = value;
    aliasOf.set(wire, alias);
  }
  return { input, aliasOf };
}

/** A scalar as written; an object or array by its type (String() of one can throw or recurse deeply). */
function shown(v: unknown): string {
  return typeof v === "object" && v !== null ? jsonTypeName(v) : String(v);
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

function describeIssue(issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  const value = valueAt(input, issue.path);
  if (value === undefined) return "missing required field";
  if (issue.code === "invalid_type") {
    const expected = issue.expected === "number" || issue.expected === "int" ? "integer" : issue.expected;
    return `expected ${expected}, got ${jsonTypeName(value)}`;
  }
  if (issue.code === "too_small" && typeof value === "string") return "must not be empty";
  if (issue.code === "too_small" && typeof value === "number")
    return `must be a positive integer, got ${value}`;
  return issue.message;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}
