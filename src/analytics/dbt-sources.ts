/**
 * The dbt source properties of the mirror (pure): every table and view of the store's drizzle
 * schema with the table reference's words, keys tested, and freshness from each company's
 * schedule. `tas-sync dbt-sources` writes it as YAML (./yaml.ts).
 */

import { formatDuration } from "../config/duration.js";
import { TABLE_DOCS, VIEW_DOCS } from "../tables/descriptions.js";
import { type Relation, relationsOf } from "../tables/relations.js";
import { PLAN_CHILD_TABLES, REPORT_CHILD_TABLES } from "../tables/table-names.js";
import type { YamlValue } from "./yaml.js";

export interface CompanySchedule {
  companyId: number;
  /** sync.every, or the company's own every (ms). */
  everyMs: number;
  /** When `tas-sync status` calls it stale (sync.staleAfter, or three periods) (ms). */
  staleAfterMs: number;
}

export interface DbtSourcesInput {
  dialect: "sqlite" | "postgres";
  /** The name in `{{ source('tas_sync', 'plans') }}`. */
  sourceName: string;
  /** PostgreSQL: the database of the URL. SQLite has none (dbt-sqlite strips it). */
  database?: string;
  /** PostgreSQL: `public`. SQLite: the name dbt-sqlite attaches the file as (`main`). */
  schema: string;
  companies: CompanySchedule[];
  /** Some company has report ids configured (scheduled_reports gets a freshness check). */
  reports: boolean;
  /** Fixed thresholds instead of those derived from the schedules (ms). */
  warnAfterMs?: number;
  errorAfterMs?: number;
}

/** A run that counts as a load, as for `tas-sync status` (succeeded or partial). */
const LOADED_RUN = "status in ('succeeded', 'partial')";

/** Views whose rows have a key (tables have theirs in the schema). */
const VIEW_KEYS: Record<string, string[]> = {
  v_plans: ["id"],
  v_plan_versions: ["version_id"],
  v_report_versions: ["version_id"],
  v_plan_schedule: ["plan_id"],
};

/** Parent of each child table, for a `relationships` test: every child row has its parent. */
const PARENTS: Record<string, { column: string; table: string }> = {
  ...Object.fromEntries(PLAN_CHILD_TABLES.map((t) => [t, { column: "plan_id", table: "plans" }])),
  ...Object.fromEntries(
    REPORT_CHILD_TABLES.map((t) => [t, { column: "report_id", table: "scheduled_reports" }]),
  ),
};

/** Where a table's rows come from, as a dbt tag (select with `source:tas_sync,tag:history`). */
function tagOf(name: string): string {
  if (name.endsWith("_versions")) return "history";
  if (/^(?:v_)?schema/.test(name)) return "observed_schema";
  if (["sync_runs", "sync_state", "rejected_records", "sync_errors"].includes(name)) return "sync";
  if (["scenario_requests", "scenarios", "seed_rejections"].includes(name)) return "push";
  return "mirror";
}

/** A dbt `warn_after` / `error_after`: the largest of day, hour, minute that counts `ms` exactly, else minutes rounded up. */
export function freshnessRule(ms: number): { count: number; period: "minute" | "hour" | "day" } {
  for (const [period, size] of [
    ["day", 86_400_000],
    ["hour", 3_600_000],
  ] as const) {
    if (ms % size === 0) return { count: ms / size, period };
  }
  return { count: Math.max(1, Math.ceil(ms / 60_000)), period: "minute" };
}

/**
 * The thresholds of one schedule: warn after two missed periods (capped at the stale time),
 * error when `tas-sync status` would call the company stale. Given thresholds win.
 */
export function thresholds(
  schedule: Pick<CompanySchedule, "everyMs" | "staleAfterMs">,
  given: Pick<DbtSourcesInput, "warnAfterMs" | "errorAfterMs">,
): { warnMs: number; errorMs: number } {
  const errorMs = given.errorAfterMs ?? schedule.staleAfterMs;
  const warnMs = given.warnAfterMs ?? Math.min(2 * schedule.everyMs, errorMs);
  if (warnMs > errorMs)
    throw new RangeError(
      `the warn threshold (${formatDuration(warnMs)}) is after the error threshold (${formatDuration(errorMs)}): give a shorter --warn-after or a longer --error-after`,
    );
  return { warnMs, errorMs };
}

function freshness(t: { warnMs: number; errorMs: number }, filter?: string) {
  return {
    warn_after: freshnessRule(t.warnMs),
    error_after: freshnessRule(t.errorMs),
    ...(filter ? { filter } : {}),
  };
}

function columnsOf(
  relation: Relation,
  words: Record<string, string>,
  keys: string[],
  sourceName: string,
): YamlValue[] {
  const single = keys.length === 1;
  return relation.columns.map((c) => {
    const tests: YamlValue[] = [];
    if (keys.includes(c.name)) tests.push(...(single ? ["unique", "not_null"] : ["not_null"]));
    const parent = PARENTS[relation.name];
    if (parent?.column === c.name)
      tests.push({ relationships: { to: `source('${sourceName}', '${parent.table}')`, field: "id" } });
    return {
      name: c.name,
      description: words[c.name] ?? "",
      data_type: c.type,
      ...(tests.length ? { data_tests: tests } : {}),
    };
  });
}

/** The whole `version: 2` / `sources:` document. */
export function dbtSources(input: DbtSourcesInput): YamlValue {
  if (input.companies.length === 0)
    throw new RangeError("no company is configured: freshness needs a schedule");
  const relations = relationsOf(input.dialect);
  const byName = new Map(relations.map((r) => [r.name, r]));
  // The shortest schedule: the whole mirror is late once its most frequent company is.
  const fastest = input.companies.reduce((a, b) => (b.everyMs < a.everyMs ? b : a));
  const whole = thresholds(fastest, input);
  const tables: YamlValue[] = [];
  for (const [name, doc] of [...Object.entries(TABLE_DOCS), ...Object.entries(VIEW_DOCS)]) {
    const relation = byName.get(name);
    if (!relation) continue;
    const keys = relation.kind === "table" ? keysOf(relation) : (VIEW_KEYS[name] ?? []);
    tables.push({
      name,
      description: doc.summary,
      tags: [tagOf(name), ...(relation.kind === "view" ? ["view"] : [])],
      ...loadedAt(name, whole, input.reports),
      columns: columnsOf(relation, doc.columns, keys, input.sourceName),
    });
  }
  const runs = byName.get("sync_runs");
  if (runs) {
    for (const company of input.companies) {
      tables.push({
        name: `sync_runs_company_${company.companyId}`,
        identifier: "sync_runs",
        description: `\`sync_runs\` of company ${company.companyId} only: its freshness is that of the company's schedule (every ${formatDuration(company.everyMs)}).`,
        tags: ["sync", "company_freshness"],
        loaded_at_field: "finished_at",
        freshness: freshness(
          thresholds(company, input),
          `company_id = ${company.companyId} and ${LOADED_RUN}`,
        ),
      });
    }
  }
  return {
    version: 2,
    sources: [
      {
        name: input.sourceName,
        description:
          "The tas-sync mirror of the Test Automation Service: plans and scheduled reports, their history, the sync runs and the observed schema (docs/reference/tables.md).",
        ...(input.database ? { database: input.database } : {}),
        schema: input.schema,
        loader: "tas-sync",
        tables,
      },
    ],
  };
}

function keysOf(relation: Relation): string[] {
  if (relation.primaryKey.length) return relation.primaryKey;
  return relation.columns.filter((c) => c.primary).map((c) => c.name);
}

/** The column that moves when a sync loads the table, for the tables where one does. */
function loadedAt(
  name: string,
  whole: { warnMs: number; errorMs: number },
  reports: boolean,
): Record<string, YamlValue> {
  switch (name) {
    case "sync_runs":
      return { loaded_at_field: "finished_at", freshness: freshness(whole, LOADED_RUN) };
    case "v_plans":
      return { loaded_at_field: "last_seen_at", freshness: freshness(whole) };
    case "scheduled_reports":
      // Without configured reports the table stays empty: a freshness check would only fail.
      return reports ? { loaded_at_field: "last_seen_at", freshness: freshness(whole) } : {};
    default:
      return {};
  }
}
