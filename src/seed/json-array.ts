/** A JSON array of row objects; a syntax error anywhere makes the whole file one problem. */
import { JsonArrayFormatError, JsonArrayScanner } from "../json/array.js";
import { BAD_ENCODING, type BytePiece, type SeedDecoder, text } from "./decode.js";
import { jsonTypeName } from "./fields.js";
import { REPEATED_KEY, repeatedKey } from "./json-keys.js";
import type { RawRecord, ReaderOutcome } from "./types.js";

/** Text held to name what a file that is not an array holds (a string, a number...). */
const NOT_ARRAY_CAP = 16 * 1024 * 1024;

type Problem = { line: number; reason: string };
/** An element as written, up to its separator (white space included), at `end` in the file. */
type Element = { bytes: Buffer; line: number; endLine: number; end: number };

export function* readJsonArray(
  input: Iterable<BytePiece>,
  decoder: SeedDecoder,
  out: ReaderOutcome,
): Generator<RawRecord> {
  // No element limit: the seed file's size is the user's (as when it was read as text).
  const scanner = new JsonArrayScanner({ lines: true, strict: true, maxElementBytes: Infinity });
  const found: Element[] = [];
  const collect = (bytes: Buffer, line: number, endLine: number, end: number) =>
    found.push({ bytes, line, endLine, end });
  const rest = input[Symbol.iterator]();
  let head: Buffer[] = []; // bytes before the first character that is not white space is known
  let headText = "";
  let decided = false;
  let fed = 0;
  let ahead = Buffer.alloc(0);
  let notParsed: Problem | null = null;
  for (let step = rest.next(); !step.done; step = rest.next()) {
    const { bytes, final } = step.value;
    let next = bytes;
    if (!decided) {
      head.push(bytes);
      headText += text(bytes);
      const first = /\S/.exec(headText);
      if (first === null && !final) continue;
      if (first !== null && first[0] !== "[") {
        // Not an array: name what it is once the whole value is known (or too long to hold).
        if (first[0] !== "{" && !final && headText.length < NOT_ARRAY_CAP) continue;
        const named = notAnArray(headText, first, final);
        if (named !== null) {
          out.fileProblem = { field: null, ...named };
          return;
        }
      }
      decided = true;
      next = Buffer.concat(head);
      head = [];
      headText = "";
    }
    // The quoted excerpt of the file at `at` (the next parts are read for it: the scan ends).
    const quote = (at: number) => {
      while (ahead.length < EXCERPT_BYTES) {
        const more = rest.next();
        if (more.done) break;
        ahead = Buffer.concat([ahead, more.value.bytes]);
      }
      return excerpt(Buffer.concat([next.subarray(at - fed), ahead]));
    };
    let problem: Problem | null = null;
    try {
      scanner.push(next, collect);
      if (final) problem = atEnd(scanner);
    } catch (err) {
      if (!(err instanceof JsonArrayFormatError)) throw err;
      problem = { line: err.line, reason: wording(err, quote) };
    }
    for (const el of found) {
      const elText = text(el.bytes);
      // Only white space (as JavaScript trims it) between separators: no element.
      if (elText.trim() === "") {
        problem = { line: el.endLine, reason: `expected an array element, found ${quote(el.end)}` };
        break;
      }
      // A structural problem anywhere wins over an element JSON.parse refuses, as when the
      // whole file was scanned first: elements are still scanned, no longer parsed.
      if (notParsed !== null) continue;
      const record = toRecord(el, elText, decoder);
      if ("reason" in record) notParsed = record;
      else yield record;
    }
    found.length = 0;
    fed += next.length;
    if (problem !== null) {
      out.fileProblem = { field: null, line: problem.line, reason: `not valid JSON: ${problem.reason}` };
      return;
    }
  }
  if (notParsed !== null) out.fileProblem = { field: null, ...notParsed };
}

/** The problem of a file that ends where it does, or null. */
function atEnd(scanner: JsonArrayScanner): Problem | null {
  const { phase, line } = scanner;
  if (phase !== "between" && phase !== "inside") return null;
  const pending = phase === "inside" ? scanner.pending() : null;
  const reason =
    pending === null || text(pending).trim() === ""
      ? "expected an array element, found end of file"
      : "unexpected end of file: the array is not closed";
  return { line, reason };
}

function wording(err: JsonArrayFormatError, quote: (at: number) => string): string {
  switch (err.problem) {
    case "not-array":
      return `expected a JSON array of scenario objects, found ${quote(err.offset)}`;
    case "no-element":
      return `expected an array element, found ${quote(err.offset)}`;
    case "after-end":
      return `unexpected ${quote(err.offset)} after the end of the array`;
    default:
      return err.message; // "unexpected '}' in the array"
  }
}

/** Characters of the file a problem quotes, and bytes enough to hold them. */
const EXCERPT = 10;
const EXCERPT_BYTES = 4 * EXCERPT;

function excerpt(bytes: Buffer): string {
  if (bytes.length === 0) return "end of file";
  return JSON.stringify(text(bytes.subarray(0, EXCERPT_BYTES)).slice(0, EXCERPT));
}

function toRecord(el: Element, elText: string, decoder: SeedDecoder): RawRecord | Problem {
  const { line } = el;
  if (decoder.spansBadLine(line, el.endLine))
    return { line, fields: null, problems: [{ field: null, reason: BAD_ENCODING }] };
  let value: unknown;
  try {
    value = JSON.parse(elText);
  } catch (e) {
    const message = (e as Error).message;
    return { line: errorLine(message, elText, line), reason: `not valid JSON: ${message}` };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const repeated = repeatedKey(elText);
    const problems = repeated === null ? [] : [{ field: repeated, reason: REPEATED_KEY }];
    return { line, fields: value as Record<string, unknown>, problems };
  }
  const reason = `expected a JSON object, got ${jsonTypeName(value)}`;
  return { line, fields: null, problems: [{ field: null, reason }] };
}

const KINDS: Record<string, string> = {
  "{": "an object",
  '"': "a string",
  t: "a boolean",
  f: "a boolean",
  n: "null",
};

/**
 * "expected a JSON array, got an object" for a file holding one valid JSON value that is not an
 * array (`match`: its first character, not '['); null for text that is not JSON: the scanner
 * says where it breaks.
 * An object first is named even when more follows: that is NDJSON in a .json file. `whole`:
 * the text is the whole file (else only an object is named).
 */
function notAnArray(text: string, match: RegExpExecArray, whole: boolean): Problem | null {
  const first = match[0];
  const line = text.slice(0, match.index).split("\n").length;
  if (first === "{") {
    const reason =
      "expected a JSON array, got an object (one object per line is NDJSON: name the file .ndjson)";
    return { line, reason };
  }
  const kind = KINDS[first] ?? (/[-0-9]/.test(first) ? "a number" : null);
  if (kind === null || !whole) return null;
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return { line, reason: `expected a JSON array, got ${kind}` };
}

/** Line of a JSON.parse error inside a slice, when the engine's message gives a position. */
function errorLine(message: string, slice: string, firstLine: number): number {
  const byLine = /\(line (\d+) column \d+\)/.exec(message);
  if (byLine) return firstLine + Number(byLine[1]) - 1;
  const byPos = /at position (\d+)/.exec(message);
  if (!byPos) return firstLine;
  const before = slice.slice(0, Number(byPos[1]));
  return firstLine + before.split("\n").length - 1;
}
