/**
 * CSV with a header row. Cells are text, so known fields are coerced here (integers,
 * booleans, a `parent` column holding a JSON object); everything else stays a string
 * and is type-checked like any other format afterwards. An empty cell means "absent".
 */
import { type CsvRecord, csvRecords } from "./csv-tokenize.js";
import { BAD_ENCODING, type BytePiece, type SeedDecoder } from "./decode.js";
import { BOOLEAN_FIELDS, INTEGER_FIELDS, jsonTypeName, quoted } from "./fields.js";
import { REPEATED_KEY, repeatedKey } from "./json-keys.js";
import type { FieldProblem, RawRecord, ReaderOutcome } from "./types.js";

const INTEGER = /^[+-]?\d+$/;
const TRUE = new Set(["true", "1", "yes"]);
const FALSE = new Set(["false", "0", "no"]);

export function* readCsv(
  input: Iterable<BytePiece>,
  decoder: SeedDecoder,
  out: ReaderOutcome,
): Generator<RawRecord> {
  let names: string[] | null = null;
  for (const row of csvRecords(input)) {
    if (names === null) {
      names = readHeader(row, decoder, out);
      if (names === null) return;
      continue;
    }
    if (row.cells.every((c) => c.trim() === "")) continue; // blank line, or a spreadsheet's empty row
    if (decoder.spansBadLine(row.line, row.endLine)) {
      yield { line: row.line, fields: null, problems: [{ field: null, reason: BAD_ENCODING }] };
    } else if (row.error !== null) {
      yield { line: row.line, fields: null, problems: [{ field: null, reason: row.error }] };
    } else {
      yield toRecord(row.line, names, row.cells);
    }
  }
}

/** The header's column names (set in `out`), or null with the file's problem set. */
function readHeader(header: CsvRecord, decoder: SeedDecoder, out: ReaderOutcome): string[] | null {
  if (header.error !== null || decoder.spansBadLine(header.line, header.endLine)) {
    const reason = header.error ?? BAD_ENCODING;
    out.fileProblem = { line: 1, field: null, reason: `header row: ${reason}` };
    return null;
  }
  const names = header.cells.map((c) => c.trim());
  const seen = new Set<string>();
  for (const name of names) {
    if (name !== "" && seen.has(name)) {
      out.fileProblem = { line: 1, field: name, reason: "duplicate column in the header row" };
      return null;
    }
    seen.add(name);
  }
  out.header = { names, line: header.line };
  return names;
}

function toRecord(line: number, names: string[], cells: string[]): RawRecord {
  const fields: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  if (cells.length > names.length) {
    // More cells than columns means the columns no longer line up: trust none of them blindly.
    problems.push({ field: null, reason: `row has ${cells.length} cells, the header has ${names.length}` });
  }
  for (let c = 0; c < names.length && c < cells.length; c++) {
    const name = names[c]!;
    const cell = cells[c]!;
    if (name === "" || cell.trim() === "") continue;
    const coerced = coerce(name, cell);
    // On failure the raw text is kept, so the default key can still be formed from it.
    fields[name] = "problem" in coerced ? cell : coerced.value;
    if ("problem" in coerced) problems.push({ field: name, reason: coerced.problem });
  }
  return { line, fields, problems };
}

function coerce(name: string, cell: string): { value: unknown } | { problem: string } {
  const t = cell.trim();
  if (INTEGER_FIELDS.has(name)) {
    const n = Number(t);
    return INTEGER.test(t) && Number.isSafeInteger(n)
      ? { value: n }
      : { problem: `expected integer, got ${quoted(cell)}` };
  }
  if (BOOLEAN_FIELDS.has(name)) {
    const lower = t.toLowerCase();
    if (TRUE.has(lower)) return { value: true };
    if (FALSE.has(lower)) return { value: false };
    return { problem: `expected boolean (true/false/1/0/yes/no), got ${quoted(cell)}` };
  }
  if (name === "parent") return coerceParent(t);
  return { value: cell };
}

function coerceParent(t: string): { value: unknown } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(t);
  } catch (e) {
    return { problem: `expected a JSON object, not valid JSON: ${(e as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { problem: `expected a JSON object, got ${jsonTypeName(value)}` };
  }
  const repeated = repeatedKey(t);
  if (repeated !== null) return { problem: `${repeated}: ${REPEATED_KEY}` };
  return { value };
}
