/**
 * The observed schema for people (pure): the paths a store holds grouped by company and entity,
 * as JSON objects, as table rows, and merged over companies (the markdown page's view of one
 * API). No I/O; `tas-sync schema` prints what these return.
 */

import { JSON_TYPES, type JsonType, type ObservedPath } from "./port.js";
import { valuePolicy } from "./values.js";

/** The order entities are shown in: a plan and what it holds, then a report and its alerts. */
const ENTITY_ORDER = [
  "plan",
  "period",
  "environment",
  "resolutions",
  "plan_alert",
  "fetch_app_file",
  "mobile_app",
  "mobile_app_metadata",
  "scheduled_report",
  "report_alert",
];

/** Sorts entity names: the known ones in ENTITY_ORDER (`mobile_app_metadata:<OS>` by OS), others by name. */
export function compareEntities(a: string, b: string): number {
  const rank = (e: string) => {
    const i = ENTITY_ORDER.indexOf(e.split(":")[0] ?? e);
    return i < 0 ? ENTITY_ORDER.length : i;
  };
  return rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** One company's entity: how many of it the records hold, and its paths (the entity row left out). */
export interface EntityGroup {
  companyId: number;
  entity: string;
  /** `present` of the entity's own row (path ""), null when the store has none. */
  count: number | null;
  paths: ObservedPath[];
}

/** The paths by company, then entity (in display order), then path. */
export function groupByEntity(paths: readonly ObservedPath[]): EntityGroup[] {
  const groups = new Map<string, EntityGroup>();
  for (const p of paths) {
    const key = `${p.companyId}\u0000${p.entity}`;
    let g = groups.get(key);
    if (!g) {
      g = { companyId: p.companyId, entity: p.entity, count: null, paths: [] };
      groups.set(key, g);
    }
    if (p.path === "") g.count = p.present;
    else g.paths.push(p);
  }
  return [...groups.values()]
    .map((g) => ({ ...g, paths: g.paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) }))
    .sort((a, b) => a.companyId - b.companyId || compareEntities(a.entity, b.entity));
}

/** The types with a value, in JSON_TYPES order: `{ integer: 3, null: 1 }`. */
export function typeCounts(p: Pick<ObservedPath, "types">): Partial<Record<JsonType, number>> {
  const out: Partial<Record<JsonType, number>> = {};
  for (const t of JSON_TYPES) if (p.types[t] > 0) out[t] = p.types[t];
  return out;
}

/**
 * Share of the entity that carries the path, 0..1; null for a path inside a list (its
 * `present` counts items, not records) or when the entity's count is unknown or zero.
 */
export function shareOf(p: Pick<ObservedPath, "path" | "present">, count: number | null): number | null {
  if (p.path.includes("[]") || !count) return null;
  return p.present / count;
}

/** A share as people read it: never "100%" when one is missing, never "0%" when one is there. */
export function percent(share: number): string {
  const p = Math.round(share * 100);
  if (p >= 100 && share < 1) return ">99%";
  if (p <= 0 && share > 0) return "<1%";
  return `${p}%`;
}

/** One observed path as `schema --json` prints it (snake_case, like every JSON report). */
function pathJson(p: ObservedPath, entityCount: number | null) {
  const share = shareOf(p, entityCount);
  return {
    company_id: p.companyId,
    entity: p.entity,
    path: p.path,
    types: typeCounts(p),
    present: p.present,
    entity_count: entityCount,
    share: share === null ? null : Math.round(share * 10_000) / 10_000,
    values: p.valuesCapped ? null : p.values.map((v) => ({ value: v.value, count: v.count })),
    values_capped: p.valuesCapped,
    min: p.minNumber,
    max: p.maxNumber,
    first_run_id: p.firstRunId,
    first_seen_at: p.firstSeenAt,
    last_run_id: p.lastRunId,
    last_seen_at: p.lastSeenAt,
  };
}

export function observedJson(paths: readonly ObservedPath[]) {
  return groupByEntity(paths).flatMap((g) => g.paths.map((p) => pathJson(p, g.count)));
}

/** `string 118, null 2` */
export function typesText(p: Pick<ObservedPath, "types">): string {
  return Object.entries(typeCounts(p))
    .map(([t, n]) => `${t} ${n}`)
    .join(", ");
}

/** `118 (98%)`, or the count alone when a share does not apply. */
export function presentText(p: ObservedPath, entityCount: number | null): string {
  const share = shareOf(p, entityCount);
  return share === null ? String(p.present) : `${p.present} (${percent(share)})`;
}

/**
 * Why a path has no values listed: `(not kept)` for free text and identifiers (valuePolicy),
 * else `(more than 50)` past the cap.
 */
export function cappedText(p: Pick<ObservedPath, "entity" | "path">, valueCap: number): string {
  return valuePolicy(p.entity, p.path) === "free" ? "(not kept)" : `(more than ${valueCap})`;
}

/** `YES 50, NO 40`; `(more than 50)` or `(not kept)` when capped; "" when the path holds no string. */
function valuesText(
  p: Pick<ObservedPath, "entity" | "path" | "values" | "valuesCapped">,
  valueCap: number,
): string {
  if (p.valuesCapped) return cappedText(p, valueCap);
  // The empty string is a value too (an empty description): shown so that it is seen.
  return p.values.map((v) => `${v.value === "" ? '""' : v.value} ${v.count}`).join(", ");
}

/** The rows of one entity's table in `tas-sync schema`. */
export function tableRows(g: EntityGroup, valueCap: number): Record<string, unknown>[] {
  return g.paths.map((p) => ({
    path: p.path,
    types: typesText(p),
    present: presentText(p, g.count),
    values: valuesText(p, valueCap),
    min: p.minNumber ?? "",
    max: p.maxNumber ?? "",
  }));
}

/** The heading of one entity's table: `plan (company 5251): 120`. */
export function groupTitle(g: EntityGroup): string {
  return `${g.entity} (company ${g.companyId}): ${g.count ?? "?"}`;
}

/**
 * Every company's paths as one API's: counts summed, the lowest minimum and highest maximum,
 * values merged (capped when any company's are, or when they add up to more than `valueCap`).
 * Company ids become 0 and run ids are kept from the earliest first and latest last sighting.
 */
export function mergeCompanies(paths: readonly ObservedPath[], valueCap: number): ObservedPath[] {
  const merged = new Map<string, ObservedPath>();
  for (const p of paths) {
    const key = `${p.entity}\u0000${p.path}`;
    const m = merged.get(key);
    if (!m) {
      merged.set(key, { ...p, companyId: 0, types: { ...p.types }, values: p.values.map((v) => ({ ...v })) });
      continue;
    }
    m.present += p.present;
    for (const t of JSON_TYPES) m.types[t] += p.types[t];
    m.minNumber = extreme(m.minNumber, p.minNumber, Math.min);
    m.maxNumber = extreme(m.maxNumber, p.maxNumber, Math.max);
    m.valuesCapped ||= p.valuesCapped;
    for (const v of p.values) {
      const same = m.values.find((x) => x.value === v.value);
      if (same) same.count += v.count;
      else m.values.push({ ...v });
    }
    if (m.values.length > valueCap) m.valuesCapped = true;
    if (m.valuesCapped) m.values = [];
    if (p.firstSeenAt !== null && (m.firstSeenAt === null || p.firstSeenAt < m.firstSeenAt))
      [m.firstSeenAt, m.firstRunId] = [p.firstSeenAt, p.firstRunId];
    if (p.lastSeenAt !== null && (m.lastSeenAt === null || p.lastSeenAt > m.lastSeenAt))
      [m.lastSeenAt, m.lastRunId] = [p.lastSeenAt, p.lastRunId];
  }
  for (const m of merged.values())
    m.values.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  return [...merged.values()];
}

function extreme(a: number | null, b: number | null, pick: (x: number, y: number) => number): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return pick(a, b);
}
