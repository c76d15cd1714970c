/**
 * `tas-sync export`: the mirror's tables and views into Parquet files (one per relation) or one
 * DuckDB database, through DuckDB's Node package (an optional dependency, loaded here only).
 * Rows stream from the store's read-only cursor into a DuckDB appender, flushed every BATCH
 * rows, into a staging database on disk with a memory limit: memory stays bounded whatever the
 * size. Files appear under their names only when complete (written as .partial, then renamed).
 */
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import { UserError } from "../errors.js";
import type { Store } from "../store/port.js";
import { type Cell, cell, createSql, type ExportRelation, selectSql, UNREADABLE } from "./export-plan.js";

export type ExportFormat = "parquet" | "duckdb";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["parquet", "duckdb"];

/** Rows appended between flushes of the appender (its buffer is the memory a table costs). */
const BATCH = 10_000;
/**
 * DuckDB's own memory while it stages and writes (beyond it, it spills to the staging file),
 * with one thread: more threads each buffer a row group of their own.
 */
const DUCKDB_OPTIONS = { memory_limit: "128MB", threads: "1" };
/** Rows of a Parquet row group: a group of plans' JSON is buffered whole while it is written. */
const ROW_GROUP = 10_000;
const DUCKDB_PACKAGE = "@duckdb/node-api";

export interface ExportResult {
  name: string;
  rows: number;
  /** The file written (Parquet), or the table in the DuckDB file. */
  file: string;
  /** Values that did not read as their column's type, written as NULL, by column. */
  unreadable: Record<string, number>;
}

export interface ExportOptions {
  store: Store;
  relations: ExportRelation[];
  format: ExportFormat;
  out: string;
  /** Rows done and the total, after each batch. */
  onProgress?(done: number, total: number): void;
  signal?: AbortSignal;
}

/** The module of @duckdb/node-api, or a one-line error that says how to get it. */
async function duckdb(): Promise<typeof import("@duckdb/node-api")> {
  try {
    return await import(DUCKDB_PACKAGE);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND")
      throw new UserError(
        `tas-sync export needs the optional package ${DUCKDB_PACKAGE}, which is not installed: run npm install ${DUCKDB_PACKAGE} where tas-sync is installed (npm installs it with tas-sync unless optional packages are omitted)`,
      );
    throw new UserError(`cannot load ${DUCKDB_PACKAGE} (DuckDB): ${(err as Error).message}`);
  }
}

export async function exportStore(opts: ExportOptions): Promise<ExportResult[]> {
  const { DuckDBInstance } = await duckdb();
  const parquet = opts.format === "parquet";
  if (parquet) mkdirSync(opts.out, { recursive: true });
  // Parquet: a staging database in the output folder (the same disk), removed at the end.
  const staging = parquet ? join(opts.out, `.tas-export-${process.pid}.duckdb`) : `${opts.out}.partial`;
  const leftovers = [staging, `${staging}.wal`];
  for (const f of leftovers) rmSync(f, { force: true });
  const partials: string[] = [];
  const instance = await DuckDBInstance.create(staging, DUCKDB_OPTIONS);
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    const total = await countAll(opts.store, opts.relations);
    let done = 0;
    const results: ExportResult[] = [];
    for (const relation of opts.relations) {
      opts.signal?.throwIfAborted();
      await connection.run(createSql(relation));
      const appended = await appendRows(connection, opts.store, relation, opts.signal, (n) => {
        done += n;
        opts.onProgress?.(done, total);
      });
      let file = `${opts.out}#${relation.name}`;
      if (parquet) {
        file = join(opts.out, `${relation.name}.parquet`);
        const partial = `${file}.partial`;
        partials.push(partial);
        await connection.run(
          `COPY "${relation.name}" TO '${partial.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP})`,
        );
        renameSync(partial, file);
        await connection.run(`DROP TABLE "${relation.name}"`);
      }
      results.push({ name: relation.name, rows: appended.rows, file, unreadable: appended.unreadable });
    }
    if (!parquet) await connection.run("CHECKPOINT");
    connection.closeSync();
    connection = undefined;
    instance.closeSync();
    if (!parquet) renameSync(staging, opts.out);
    return results;
  } finally {
    connection?.closeSync();
    instance.closeSync();
    for (const f of [...(parquet ? leftovers : [staging, `${staging}.wal`]), ...partials])
      rmSync(f, { force: true });
  }
}

async function countAll(store: Store, relations: ExportRelation[]): Promise<number> {
  let total = 0;
  for (const r of relations) {
    const cursor = await store.sql.query(`SELECT count(*) FROM "${r.name}"`);
    for await (const [n] of cursor.rows) total += Number(n);
  }
  return total;
}

async function appendRows(
  connection: DuckDBConnection,
  store: Store,
  relation: ExportRelation,
  signal: AbortSignal | undefined,
  progress: (rows: number) => void,
): Promise<{ rows: number; unreadable: Record<string, number> }> {
  const { DuckDBTimestampTZValue } = await duckdb();
  const appender = await connection.createAppender(relation.name);
  const unreadable: Record<string, number> = {};
  const columns = relation.columns;
  let rows = 0;
  let batch = 0;
  try {
    const cursor = await store.sql.query(selectSql(relation));
    for await (const row of cursor.rows) {
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i] as (typeof columns)[number];
        let value: Cell = cell(row[i], column.type);
        if (value === UNREADABLE) {
          unreadable[column.name] = (unreadable[column.name] ?? 0) + 1;
          value = null;
        }
        append(appender, column.type, value, DuckDBTimestampTZValue);
      }
      appender.endRow();
      rows++;
      if (++batch === BATCH) {
        appender.flushSync();
        progress(batch);
        batch = 0;
        signal?.throwIfAborted();
      }
    }
    appender.flushSync();
    progress(batch);
  } finally {
    appender.closeSync();
  }
  return { rows, unreadable };
}

function append(
  appender: DuckDBAppender,
  type: ExportRelation["columns"][number]["type"],
  value: Exclude<Cell, typeof UNREADABLE>,
  Timestamp: typeof import("@duckdb/node-api").DuckDBTimestampTZValue,
): void {
  if (value === null) {
    appender.appendNull();
    return;
  }
  switch (type) {
    case "BIGINT":
      appender.appendBigInt(value as bigint);
      return;
    case "INTEGER":
      appender.appendInteger(value as number);
      return;
    case "BOOLEAN":
      appender.appendBoolean(value as boolean);
      return;
    case "DOUBLE":
      appender.appendDouble(value as number);
      return;
    case "TIMESTAMPTZ":
      appender.appendTimestampTZ(new Timestamp(value as bigint));
      return;
    case "VARCHAR":
      appender.appendVarchar(value as string);
      return;
  }
}
