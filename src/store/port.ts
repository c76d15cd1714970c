/**
 * The store as the pipeline sees it: one interface, one adapter per dialect (./sqlite,
 * ./postgres). Operations only read and write; which rows settle how, what counts as stale
 * or dead, and what a snapshot changes are decided in sync/ and push/.
 */
import { UserError } from "../errors.js";
import type { OutboxStore } from "./port-outbox.js";
import type { RetentionStore } from "./port-retention.js";
import type { RunStore } from "./port-runs.js";
import type { SchemaStore } from "./port-schema.js";
import type { SnapshotStore } from "./port-snapshot.js";

export type * from "./port-outbox.js";
export type * from "./port-retention.js";
export type * from "./port-runs.js";
export type * from "./port-schema.js";
export type * from "./port-snapshot.js";

export type Dialect = "sqlite" | "postgres";

/** How a store is opened (store/open.ts); here so that the adapters need not import the opener. */
export interface OpenOptions {
  /** Apply pending migrations (default true); safe when several processes open at once. */
  migrate?: boolean;
  /** Open for reading only (`query`): a SQLite file must exist; nothing is migrated. */
  readonly?: boolean;
}

export interface Store {
  readonly dialect: Dialect;
  /** Where it is, for messages (a postgres URL with its password masked). */
  readonly display: string;
  readonly runs: RunStore;
  readonly snapshots: SnapshotStore;
  readonly outbox: OutboxStore;
  /** The service as observed: paths, values, changes. */
  readonly schema: SchemaStore;
  /** Removing old bookkeeping in small batches (retention). */
  readonly retention: RetentionStore;
  /** Read-only SQL for people (`tas-sync query`). */
  readonly sql: SqlReader;
  /** Throws when the database does not answer (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Rows of a read-only query, streamed: columns first, then one array of values per row. */
export interface QueryCursor {
  columns: string[];
  rows: AsyncIterable<unknown[]>;
}

export interface SqlReader {
  /**
   * Runs one statement in a read-only context. Throws QueryReadOnlyError for a statement that
   * writes and QueryError (a one-line message for people) for any other problem with the SQL.
   */
  query(sql: string): Promise<QueryCursor>;
  /** The applied migrations, for `migrate`. */
  migrationCount(): Promise<number>;
}

/** The SQL given to `query` cannot run: the message says why, in one line, for people (exit 2). */
export class QueryError extends UserError {
  override name = "QueryError";
}

/** A statement that would write, given to `query`. */
export class QueryReadOnlyError extends QueryError {
  override name = "QueryReadOnlyError";
}
