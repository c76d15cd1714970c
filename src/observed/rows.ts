/** Rows of schema_paths / schema_changes to the port's shapes, for both adapters. */
import type { JsonType, ObservedPath, SchemaChange, SchemaChangeKind } from "./port.js";

/** A schema_paths row as both adapters read it (booleans as 0/1 or boolean, ids as numbers). */
export interface PathRow {
  company_id: number | string;
  entity: string;
  path: string;
  present: number;
  n_string: number;
  n_integer: number;
  n_number: number;
  n_boolean: number;
  n_null: number;
  n_object: number;
  n_array: number;
  min_number: number | null;
  max_number: number | null;
  values_capped: number | boolean;
  first_run_id: number | string | null;
  first_seen_at: string | null;
  last_run_id: number | string | null;
  last_seen_at: string | null;
}

const num = (v: number | string | null) => (v === null ? null : Number(v));

export function pathOf(r: PathRow, values: { value: string; count: number }[]): ObservedPath {
  const types: Record<JsonType, number> = {
    string: r.n_string,
    integer: r.n_integer,
    number: r.n_number,
    boolean: r.n_boolean,
    null: r.n_null,
    object: r.n_object,
    array: r.n_array,
  };
  return {
    companyId: Number(r.company_id),
    entity: r.entity,
    path: r.path,
    present: r.present,
    types,
    minNumber: r.min_number,
    maxNumber: r.max_number,
    valuesCapped: Boolean(r.values_capped),
    values,
    firstRunId: num(r.first_run_id),
    firstSeenAt: r.first_seen_at,
    lastRunId: num(r.last_run_id),
    lastSeenAt: r.last_seen_at,
  };
}

/** A path as a schema_paths row, by the drizzle tables' keys (the same on both stores). */
export function pathRow(p: ObservedPath) {
  const t = p.types;
  return {
    companyId: p.companyId,
    entity: p.entity,
    path: p.path,
    present: p.present,
    nString: t.string,
    nInteger: t.integer,
    nNumber: t.number,
    nBoolean: t.boolean,
    nNull: t.null,
    nObject: t.object,
    nArray: t.array,
    minNumber: p.minNumber,
    maxNumber: p.maxNumber,
    valuesCapped: p.valuesCapped,
    firstRunId: p.firstRunId,
    firstSeenAt: p.firstSeenAt,
    lastRunId: p.lastRunId,
    lastSeenAt: p.lastSeenAt,
  };
}

export interface ChangeRow {
  id: number | string;
  company_id: number | string;
  run_id: number | string;
  detected_at: string;
  entity: string;
  path: string;
  kind: string;
  before: string | null;
  after: string | null;
  example_id: number | string | null;
  refused: number | string | null;
  acknowledged_at: string | null;
}

export function changeOf(r: ChangeRow): SchemaChange {
  return {
    id: Number(r.id),
    companyId: Number(r.company_id),
    runId: Number(r.run_id),
    detectedAt: r.detected_at,
    entity: r.entity,
    path: r.path,
    kind: r.kind as SchemaChangeKind,
    before: r.before,
    after: r.after,
    exampleId: num(r.example_id),
    refused: num(r.refused),
    acknowledgedAt: r.acknowledged_at,
  };
}

/** Groups value rows by (company, entity, path). */
export function valuesByPath(
  rows: Iterable<{ company_id: number | string; entity: string; path: string; value: string; count: number }>,
): Map<string, { value: string; count: number }[]> {
  const out = new Map<string, { value: string; count: number }[]>();
  for (const r of rows) {
    const key = pathKey(Number(r.company_id), r.entity, r.path);
    const list = out.get(key) ?? [];
    if (list.length === 0) out.set(key, list);
    list.push({ value: r.value, count: r.count });
  }
  return out;
}

export const pathKey = (companyId: number, entity: string, path: string) =>
  `${companyId}\u0000${entity}\u0000${path}`;
