/**
 * The records of a CSV file, split by csv-parse, each with the physical lines it spans (counted
 * here from the LFs of its cells: csv-parse counts a CR as a line too). The reader's rules: RFC
 * 4180 quoting (commas, doubled quotes and newlines inside quotes); records end at LF or CRLF; a
 * CRLF inside quotes becomes LF, a lone CR stays; a quote inside an unquoted cell is a plain
 * character (spreadsheets write such files); text after a closing quote is an error for that
 * record alone, and reading goes on at the next line; a quote still open at the end is an error.
 */
import { createRequire } from "node:module";
import type { CsvError as CsvErrorType, Options } from "csv-parse/sync";
import type { BytePiece } from "./decode.js";

type CsvParse = typeof import("csv-parse/sync");
/** Loaded on first use: a push of an NDJSON or JSON seed file never loads csv-parse. */
let csvParse: CsvParse | undefined;
const lib = (): CsvParse => (csvParse ??= createRequire(import.meta.url)("csv-parse/sync") as CsvParse);
const parse = (input: Buffer, options: Options): string[][] => lib().parse(input, options);
const isCsvError = (err: unknown): err is CsvErrorType => err instanceof lib().CsvError;

export interface CsvRecord {
  /** Physical line on which the record starts (1-based). */
  line: number;
  /** Physical line on which it ends (differs when a quoted cell holds newlines). */
  endLine: number;
  cells: string[];
  error: string | null;
}

const LF = 0x0a;
const QUOTE = '"';
/** Bytes given to csv-parse at a time (more when a quoted cell goes on): its records die young. */
const SLICE = 64 * 1024;

const COMMON: Options = { record_delimiter: ["\r\n", "\n"], relax_column_count: true };
/**
 * relax_quotes keeps a quote inside an unquoted cell, as a plain character. It also reads `"1"x`
 * as the cell `"1"x`, which `"""1""x"` gives as well: a cell that starts with a quote is read
 * again strictly (STRICT) to tell them apart.
 */
const RELAXED: Options = { ...COMMON, relax_quotes: true };
/**
 * Strict about closing quotes only: a quote inside an unquoted cell is skipped over as above.
 * Read as latin1, so that the raw text of the record has one character per byte (as UTF-8, a byte
 * that is not UTF-8 comes back as a three-byte replacement character and the offset drifts).
 */
const STRICT: Options = {
  ...COMMON,
  encoding: "latin1",
  raw: true,
  skip_records_with_error: true,
  on_skip: (err) => {
    if (err?.code !== "INVALID_OPENING_QUOTE") throw err;
    return undefined;
  },
};

/**
 * The records of a file's bytes, given a piece at a time (each ends at a line end), as csv-parse
 * takes them: not decoded first (a line that is not UTF-8 is the reader's problem, whatever its
 * cells say).
 */
export function* csvRecords(pieces: Iterable<BytePiece>): Generator<CsvRecord> {
  let rest: Buffer[] = []; // a record whose quoted cell was still open at the last piece's end
  let line = 1;
  for (const { bytes, final } of pieces) {
    rest.push(bytes);
    // Without a quote in the new bytes, an open quoted cell stays open: read it when it can close.
    if (rest.length > 1 && !final && !bytes.includes(QUOTE)) continue;
    const buf = rest.length === 1 ? rest[0]! : Buffer.concat(rest);
    rest = [];
    let from = 0;
    let whole = false;
    while (from < buf.length) {
      let to = whole ? buf.length : buf.lastIndexOf(LF, from + SLICE) + 1;
      if (to <= from) to = buf.length;
      const part = readSlice(buf, from, to, line, final && to === buf.length);
      yield* part.records;
      line = part.line;
      from = part.next;
      whole = part.open;
      if (part.open && to === buf.length) {
        rest = [buf.subarray(from)];
        break;
      }
    }
  }
}

/** Every record of a whole text. */
export function tokenizeCsv(text: string): CsvRecord[] {
  return [...csvRecords([{ bytes: Buffer.from(text), final: true }])];
}

interface Slice {
  records: CsvRecord[];
  /** Where reading goes on. */
  next: number;
  /** The line `next` is on. */
  line: number;
  /** The record at `next` has a quoted cell still open at the slice's end (not the file's end). */
  open: boolean;
}

/** The records of buf[from, to), which starts on `line`; `last` when `to` is the end of the file. */
function readSlice(buf: Buffer, from: number, to: number, line: number, last: boolean): Slice {
  const records: CsvRecord[] = [];
  const slice = buf.subarray(from, to);
  try {
    // The common case at one call: no quote open, and no cell read by relax_quotes alone.
    const rows = parse(slice, RELAXED);
    if (!rows.some((cells) => cells.some(startsWithQuote)) || badQuote(slice) === -1) {
      for (const cells of rows) line = add(records, cells, line);
      return { records, next: to, line, open: false };
    }
  } catch (err) {
    if (!(isCsvError(err) && err.code === "CSV_QUOTE_NOT_CLOSED")) throw err;
  }
  // Read again one record at a time, up to the record with the bad or open quote.
  let at = from;
  const stop = new Error("bad closing quote");
  try {
    parse(slice, {
      ...RELAXED,
      on_record: (cells, { bytes }) => {
        if (cells.some(startsWithQuote) && badQuote(buf.subarray(at, from + bytes)) !== -1) throw stop;
        line = add(records, cells, line);
        at = from + bytes;
        return null;
      },
    });
    return { records, next: to, line, open: false };
  } catch (err) {
    if (err !== stop && !(isCsvError(err) && err.code === "CSV_QUOTE_NOT_CLOSED")) throw err;
  }
  const quote = badQuote(buf.subarray(at, to));
  const eol = quote === -1 ? -1 : buf.indexOf(LF, at + quote);
  if ((eol === -1 || eol >= to) && !last) return { records, next: at, line, open: true };
  const end = eol === -1 || eol >= to ? to : eol;
  const endLine = line + countLf(buf, at, end);
  // Its cells as far as they go (a blank one is skipped like a blank line): up to the bad quote,
  // or with the open quote closed at the end.
  const read =
    quote === -1 ? Buffer.concat([buf.subarray(at, to), Buffer.from(QUOTE)]) : buf.subarray(at, at + quote);
  const cells = crlfToLf(parse(read, RELAXED)[0] ?? []);
  const error = quote === -1 ? "unterminated quoted field" : "unexpected text after a closing quote";
  records.push({ line, endLine, cells, error });
  return { records, next: end === to ? to : end + 1, line: endLine + 1, open: false };
}

/**
 * Where the first record of `bytes` has text after a closing quote: the offset just past that
 * quote, or -1 when it has none (a quote still open is not one).
 */
function badQuote(bytes: Buffer): number {
  try {
    parse(bytes, STRICT);
  } catch (err) {
    if (isCsvError(err) && err.code === "CSV_INVALID_CLOSING_QUOTE") {
      // `raw` is the record's text up to the quote, a character per byte (latin1, above).
      return (err.raw as string).length;
    }
    if (!(isCsvError(err) && err.code === "CSV_QUOTE_NOT_CLOSED")) throw err;
  }
  return -1;
}

/** Adds a record that starts on `line`; returns the line after it. */
function add(records: CsvRecord[], cells: string[], line: number): number {
  let endLine = line;
  for (const cell of cells) {
    // Only a quoted cell holds a line end.
    for (let i = cell.indexOf("\n"); i !== -1; i = cell.indexOf("\n", i + 1)) endLine++;
  }
  records.push({ line, endLine, cells: endLine === line ? cells : crlfToLf(cells), error: null });
  return endLine + 1;
}

/** A line end inside quotes is LF whichever system wrote the file (docs/push.md). */
function crlfToLf(cells: string[]): string[] {
  return cells.map((cell) => cell.replaceAll("\r\n", "\n"));
}

function startsWithQuote(cell: string): boolean {
  return cell.startsWith(QUOTE);
}

function countLf(buf: Buffer, from: number, to: number): number {
  let count = 0;
  for (let i = buf.indexOf(LF, from); i !== -1 && i < to; i = buf.indexOf(LF, i + 1)) count++;
  return count;
}
