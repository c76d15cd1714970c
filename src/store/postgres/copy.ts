/**
 * COPY ... FROM STDIN in PostgreSQL's text format, with rows derived from the drizzle tables:
 * the fastest way to load many rows (no parameters to bind, no plan per statement). Used for
 * rows that cannot conflict; an upsert goes through unnest (sql.ts).
 */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import { from as copyFrom } from "pg-copy-streams";
import type { PoolClient } from "./pool.js";
import { isoToPg } from "./pool.js";

const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** Text already in the format: a value written into several rows is escaped once. */
class CopyEscaped {
  readonly text: string;
  constructor(value: string) {
    this.text = copyField(value);
  }
}

/** One field of the text format: \N for null, t/f, backslash, tab, newline and CR escaped. */
function copyField(v: unknown): string {
  if (v === null || v === undefined) return "\\N";
  if (v instanceof CopyEscaped) return v.text;
  if (typeof v === "boolean") return v ? "t" : "f";
  const s = String(v);
  return SPECIAL.test(s) ? s.replace(SPECIALS, (ch) => ESCAPES[ch] as string) : s;
}

export interface CopyTable<Row> {
  /** `COPY "table" ("col", ...) FROM STDIN` */
  readonly statement: string;
  /**
   * A row ($inferInsert shape) as one line of the text format, newline included; a key of
   * `extra` (if given) wins over the row's, which spares copying a row to add columns.
   */
  line(row: Row, extra?: Partial<Record<keyof Row, unknown>>): string;
}

/** How rows of `table` are written by COPY; `omit` leaves columns (by key) to their defaults. */
export function copyTable<T extends PgTable>(
  table: T,
  omit: readonly string[] = [],
): CopyTable<Partial<T["$inferInsert"]>> {
  const entries = Object.entries(getTableColumns(table)).filter(([key]) => !omit.includes(key));
  const keys = entries.map(([key]) => key);
  const timestamps = entries.map(([, col]) => col.getSQLType().startsWith("timestamp"));
  const cols = entries.map(([, col]) => `"${col.name}"`).join(", ");
  return {
    statement: `COPY "${getTableConfig(table).name}" (${cols}) FROM STDIN`,
    line(row, extra) {
      const r = row as Record<string, unknown>;
      const x = extra as Record<string, unknown> | undefined;
      let out = "";
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const v = x !== undefined && key in x ? x[key] : r[key];
        out += (i ? "\t" : "") + copyField(timestamps[i] ? isoToPg(v as string | null | undefined) : v);
      }
      return `${out}\n`;
    },
  };
}

/** Streams text (lines of the format, in chunks) through one COPY. Returns the rows copied. */
export async function copyText(
  client: PoolClient,
  statement: string,
  chunks: Iterable<string | Buffer>,
): Promise<number> {
  const stream = client.query(copyFrom(statement));
  await pipeline(Readable.from(chunks, { objectMode: false }), stream);
  return stream.rowCount;
}
