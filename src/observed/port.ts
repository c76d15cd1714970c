/**
 * The service as observed (schema_paths, schema_values, schema_changes), read by people's
 * commands, `status`, the daemon's alerts and a sync (the state it compares a run against);
 * written by a sync's snapshot transaction (SnapshotOp "schema.write").
 */

export type {
  JsonType,
  NewSchemaChange,
  ObservedPath,
  PathWrite,
  SchemaChange,
  SchemaChangeKind,
  SchemaWrite,
} from "./types.js";
export { CHANGE_KINDS, JSON_TYPES } from "./types.js";

import type { ObservedPath, SchemaChange, SchemaChangeKind } from "./types.js";

export interface SchemaChangeFilter {
  /** One change. */
  id?: number;
  companyId?: number;
  /** Only changes of these kinds. */
  kinds?: readonly SchemaChangeKind[];
  /** Changes detected at or after this moment (ISO 8601). */
  sinceAt?: string;
  /** Changes of runs with this id or a later one. */
  sinceRunId?: number;
  /** Only those not acknowledged yet. */
  open?: boolean;
}

export interface SchemaStore {
  /** The observed paths with their values, by company (all when not given), ordered. */
  observed(filter: { companyId?: number }): Promise<ObservedPath[]>;
  /** The change log, oldest first. */
  changes(filter: SchemaChangeFilter): Promise<SchemaChange[]>;
  /** Acknowledges one change, or every open one (of a company); returns how many. */
  acknowledge(target: { id: number } | { companyId?: number }, at: string): Promise<number>;
  /** Open (unacknowledged) changes per company. */
  openChanges(companyIds: readonly number[]): Promise<Map<number, number>>;
}
