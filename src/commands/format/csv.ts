/**
 * RFC 4180 CSV: a header row, CRLF line ends, fields with a comma, quote, CR or LF quoted
 * and their quotes doubled. NULL is an empty field, an empty string is "" (as PostgreSQL's COPY
 * writes them), so the two stay apart. Values are carried exactly: nothing is escaped.
 */
import type { RowSink, Write } from "./sink.js";
import { valueText } from "./value.js";

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field. */
export function csvField(v: unknown): string {
  const s = valueText(v);
  if (s === null) return "";
  if (s === "") return '""';
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function csvSink(write: Write): RowSink {
  return {
    begin(columns) {
      // A header name is never NULL: an empty one is written as "" like any empty text.
      write(`${columns.map(csvField).join(",")}\r\n`);
    },
    row(values) {
      write(`${values.map(csvField).join(",")}\r\n`);
    },
    end() {},
  };
}
