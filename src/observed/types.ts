/**
 * The shapes of the observed schema (schema_paths, schema_values, schema_changes) as the
 * observer (src/observed/) makes them and the store (port-schema.ts) keeps them.
 */

export const JSON_TYPES = ["string", "integer", "number", "boolean", "null", "object", "array"] as const;
export type JsonType = (typeof JSON_TYPES)[number];

export const CHANGE_KINDS = ["added", "removed", "type_changed", "new_value", "value_gone"] as const;
export type SchemaChangeKind = (typeof CHANGE_KINDS)[number];

/** One observed path of a company's entity; path "" is the entity itself. */
export interface ObservedPath {
  companyId: number;
  entity: string;
  path: string;
  /** Values at the path in the records the mirror holds. */
  present: number;
  /** Values of each JSON type at the path. */
  types: Record<JsonType, number>;
  minNumber: number | null;
  maxNumber: number | null;
  /** More distinct strings than schema.valueCap: `values` is null. */
  valuesCapped: boolean;
  /** String values with their counts (none when capped or no strings). */
  values: { value: string; count: number }[];
  firstRunId: number | null;
  firstSeenAt: string | null;
  lastRunId: number | null;
  lastSeenAt: string | null;
}

export interface SchemaChange {
  id: number;
  companyId: number;
  runId: number;
  detectedAt: string;
  entity: string;
  path: string;
  kind: SchemaChangeKind;
  before: string | null;
  after: string | null;
  exampleId: number | null;
  /**
   * Records the run refused (the reader rejected them, or the contract did) that show the change;
   * null for a change of the records it stored.
   */
  refused: number | null;
  acknowledgedAt: string | null;
}

/** A change as a run writes it (its id and acknowledgement come from the store; `refused` null when absent). */
export type NewSchemaChange = Omit<
  SchemaChange,
  "id" | "acknowledgedAt" | "companyId" | "runId" | "detectedAt" | "refused"
> & { refused?: number | null };

/** A path as a run writes it, whole; its value rows are replaced unless they are as stored. */
export type PathWrite = ObservedPath & { valuesKept?: boolean };

/**
 * What a run's transaction writes: the paths whose rows moved, whole, as they now are; the paths
 * it saw whose rows did not otherwise move (only their last_run_id and last_seen_at do, to the
 * run's); and the changes it found.
 */
export interface SchemaWrite {
  paths: PathWrite[];
  seen?: { entity: string; path: string }[];
  changes: NewSchemaChange[];
}
