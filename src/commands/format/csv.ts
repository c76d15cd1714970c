/**
 * RFC 4180 CSV: a header row, CRLF line ends, fields with a comma, quote, CR or LF quoted
 * and their quotes doubled. NULL is an empty field, an empty string is "" (as PostgreSQL's COPY
 * writes them), so the two stay apart.
 *
 * Formula guard (OWASP, "CSV Injection"): a spreadsheet runs a cell that starts with = + - @,
 * tab or CR as a formula (`=HYPERLINK(...)`, `+cmd|' /C calc'!A0`). Such a cell, header names
 * included, gets a leading single quote, which the spreadsheet shows as text. A number is left
 * alone, whether stored as a number or as text that reads as one (-5, +1.5, -2e3): a spreadsheet
 * reads it as that number, never as a formula. `raw` turns the guard off (values exactly as
 * stored, for programs).
 */
import type { RowSink, Write } from "./sink.js";
import { valueText } from "./value.js";

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export interface CsvOptions {
  /** Write cells exactly as stored: no formula guard. */
  raw?: boolean;
}

/** The text of a cell a spreadsheet would run as a formula, made inert; any other text as it is. */
function formulaSafe(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** One CSV field (formula-guarded unless `raw`). */
export function csvField(v: unknown, opts: CsvOptions = {}): string {
  const text = valueText(v);
  if (text === null) return "";
  if (text === "") return '""';
  const s = opts.raw ? text : formulaSafe(text);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function csvSink(write: Write, opts: CsvOptions = {}): RowSink {
  const field = (v: unknown) => csvField(v, opts);
  return {
    begin(columns) {
      // A header name is never NULL: an empty one is written as "" like any empty text.
      write(`${columns.map(field).join(",")}\r\n`);
    },
    row(values) {
      write(`${values.map(field).join(",")}\r\n`);
    },
    end() {},
  };
}
