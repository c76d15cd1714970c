/**
 * The store as the pipeline sees it: one interface, one adapter per dialect (./sqlite,
 * ./postgres). Operations only read and write; which rows settle how, what counts as stale
 * or dead, and what a snapshot changes are decided in sync/ and push/.
 */
import { UserError } from "../errors.js";
import type { SchemaStore } from "../observed/port.js";
import type { OutboxStore } from "./port-outbox.js";
import type { RetentionStore } from "./port-retention.js";
import type { RunStore } from "./port-runs.js";
import type { SnapshotStore } from "./port-snapshot.js";

export type * from "../observed/port.js";
export type * from "./port-outbox.js";
export type * from "./port-retention.js";
export type * from "./port-runs.js";
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
  /** One-line warnings for people (a superuser role, a role that may write), printed before the rows. */
  warnings: string[];
}

/** How long a query may run, and what stops it. */
export interface QueryOptions {
  /** From the start until the last row is read, ms; 0 or absent: no limit. */
  timeoutMs?: number;
  /** Stops a running query (Ctrl-C): the rows end early, whatever the statement is doing. */
  signal?: AbortSignal;
}

export interface SqlReader {
  /**
   * Runs one statement in a read-only context. Throws QueryReadOnlyError for a statement that
   * writes and QueryError (a one-line message for people) for any other problem with the SQL.
   */
  query(sql: string, opts?: QueryOptions): Promise<QueryCursor>;
  /** The applied migrations, for `migrate`. */
  migrationCount(): Promise<number>;
}

/** The SQL given to `query` cannot run: the message says why, in one line, for people (exit 2). */
export class QueryError extends UserError {
  override name = "QueryError";
}

/** A query that ran longer than its timeout: the message names the key and the flag to raise it. */
export class QueryTimeoutError extends QueryError {
  override name = "QueryTimeoutError";
}

/** The one line of a query stopped by its timeout. */
export function timeoutMessage(timeoutMs: number): string {
  const s = timeoutMs / 1000;
  const text = s % 60 === 0 ? `${s / 60}m` : `${s}s`;
  return `query stopped: it ran longer than its timeout of ${text} (raise query.timeout or --timeout; 0 for none)`;
}

/** A statement that would write, given to `query`. */
export class QueryReadOnlyError extends QueryError {
  override name = "QueryReadOnlyError";
}
