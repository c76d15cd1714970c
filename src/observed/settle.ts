/**
 * What a run's observation changes: the known paths of the company plus the run's counts give
 * the paths as they now are (the rows to write) and the changes against what was known (drift).
 * Pure: no I/O; the run's id and start come in.
 */

import type { Observation, PathNode } from "./observation.js";
import {
  JSON_TYPES,
  type NewSchemaChange,
  type ObservedPath,
  type PathWrite,
  type SchemaWrite,
} from "./types.js";
import { fewValues, valuePolicy } from "./values.js";

export interface SettleContext {
  companyId: number;
  runId: number;
  at: string;
  valueCap: number;
  /** The plan list was complete: a plan path gone from it is `removed`. */
  plansListed: boolean;
  /** Nothing was known of the company before this run: its observations are the baseline, no change rows. */
  baseline: boolean;
}

/** Entities whose records come from the plan list (the rest are reports'). */
const REPORT_ENTITIES = new Set(["scheduled_report", "report_alert"]);

export const pathKey = (entity: string, path: string) => `${entity}\u0000${path}`;

/** The types a path holds, as text: `integer,null`. */
export function typesText(types: Record<string, number>): string {
  return JSON_TYPES.filter((t) => (types[t] ?? 0) > 0).join(",");
}

function empty(companyId: number, node: PathNode): ObservedPath {
  return {
    companyId,
    entity: node.entity,
    path: node.path,
    present: 0,
    types: Object.fromEntries(JSON_TYPES.map((t) => [t, 0])) as ObservedPath["types"],
    minNumber: null,
    maxNumber: null,
    valuesCapped: false,
    values: [],
    firstRunId: null,
    firstSeenAt: null,
    lastRunId: null,
    lastSeenAt: null,
  };
}

const min = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const max = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/**
 * The rows to write and the changes, for every path the observation touched: a path whose row
 * moved is written whole (its values only when they moved too); one only seen again (a changed
 * record carrying it, its counts as they were) has just its last sighting moved.
 */
export function settle(known: readonly ObservedPath[], obs: Observation, ctx: SettleContext): SchemaWrite {
  const byKey = new Map(known.map((p) => [pathKey(p.entity, p.path), p]));
  const paths: PathWrite[] = [];
  const seen: { entity: string; path: string }[] = [];
  const changes: NewSchemaChange[] = [];
  for (const node of obs.nodes) {
    const before = byKey.get(pathKey(node.entity, node.path)) ?? empty(ctx.companyId, node);
    const after = merge(before, node, ctx);
    const valuesKept = sameValues(before, after);
    if (valuesKept && sameCounts(before, after)) {
      if (after.lastRunId !== before.lastRunId) seen.push({ entity: node.entity, path: node.path });
      continue;
    }
    paths.push(valuesKept ? { ...after, valuesKept } : after);
    if (!ctx.baseline) changes.push(...changesOf(before, after, node, ctx));
  }
  return { paths, seen, changes };
}

function merge(before: ObservedPath, node: PathNode, ctx: SettleContext): ObservedPath {
  const types = { ...before.types };
  JSON_TYPES.forEach((t, i) => {
    types[t] = Math.max(0, types[t] + (node.types[i] as number));
  });
  const present = Math.max(0, before.present + node.present);
  // Values not kept (past the cap, or free text: valuePolicy) matter only where there are strings.
  let capped = before.valuesCapped || (node.values === null && types.string > 0);
  let values: ObservedPath["values"] = [];
  if (!capped) {
    const counts = new Map(before.values.map((v) => [v.value, v.count]));
    for (const [value, v] of node.values ?? []) counts.set(value, (counts.get(value) ?? 0) + v.count);
    values = [...counts]
      .filter(([, count]) => count > 0)
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    if (values.length > ctx.valueCap) {
      capped = true;
      values = [];
    }
  }
  const first = before.firstRunId === null && node.seen;
  return {
    ...before,
    present,
    types,
    minNumber: min(before.minNumber, node.min),
    maxNumber: max(before.maxNumber, node.max),
    valuesCapped: capped,
    values,
    firstRunId: first ? ctx.runId : before.firstRunId,
    firstSeenAt: first ? ctx.at : before.firstSeenAt,
    lastRunId: node.seen ? ctx.runId : before.lastRunId,
    lastSeenAt: node.seen ? ctx.at : before.lastSeenAt,
  };
}

/** The row but its values and last sighting: as it was. */
function sameCounts(a: ObservedPath, b: ObservedPath): boolean {
  return (
    a.present === b.present &&
    JSON_TYPES.every((t) => a.types[t] === b.types[t]) &&
    a.minNumber === b.minNumber &&
    a.maxNumber === b.maxNumber &&
    a.firstRunId === b.firstRunId
  );
}

function sameValues(a: ObservedPath, b: ObservedPath): boolean {
  return (
    a.valuesCapped === b.valuesCapped &&
    a.values.length === b.values.length &&
    a.values.every((v, i) => v.value === b.values[i]?.value && v.count === b.values[i]?.count)
  );
}

function changesOf(
  before: ObservedPath,
  after: ObservedPath,
  node: PathNode,
  ctx: SettleContext,
): NewSchemaChange[] {
  const out: NewSchemaChange[] = [];
  const { entity, path } = node;
  const was = typesText(before.types);
  const is = typesText(after.types);
  if (before.present === 0 && after.present > 0) {
    out.push({ entity, path, kind: "added", before: null, after: is, exampleId: node.example });
    return out;
  }
  if (before.present > 0 && after.present === 0) {
    // A plan path counts as gone only from a complete list (a partial one may just not have it).
    if (ctx.plansListed || REPORT_ENTITIES.has(entity))
      out.push({ entity, path, kind: "removed", before: was, after: null, exampleId: null });
    return out;
  }
  if (was !== is) {
    const newType = JSON_TYPES.findIndex(
      (t, i) => before.types[t] === 0 && after.types[t] > 0 && node.typeExamples[i] !== null,
    );
    out.push({
      entity,
      path,
      kind: "type_changed",
      before: was,
      after: is,
      exampleId: newType >= 0 ? (node.typeExamples[newType] ?? null) : null,
    });
  }
  // Values of a path that held no string before, or holds none now: the type change says it.
  if (before.valuesCapped || after.valuesCapped || before.types.string === 0 || after.types.string === 0)
    return out;
  // Only an enumeration's values speak: a documented one, or a new path whose values stay few.
  const policy = valuePolicy(entity, path);
  if (policy === "free" || (policy === "watch" && !(fewValues(before) && fewValues(after)))) return out;
  const old = new Map(before.values.map((v) => [v.value, v.count]));
  const now = new Map(after.values.map((v) => [v.value, v.count]));
  for (const [value, count] of now)
    if (count > 0 && !old.has(value))
      out.push({
        entity,
        path,
        kind: "new_value",
        before: null,
        after: value,
        exampleId: node.values?.get(value)?.example ?? null,
      });
  for (const value of old.keys())
    if (!now.has(value))
      out.push({ entity, path, kind: "value_gone", before: value, after: null, exampleId: null });
  return out;
}
