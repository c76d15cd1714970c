/** A JSON array of row objects; a syntax error anywhere makes the whole file one problem. */
import { BAD_ENCODING, type Piece, type SeedDecoder } from "./decode.js";
import { jsonTypeName } from "./fields.js";
import { REPEATED_KEY, repeatedKey } from "./json-keys.js";
import { JsonArrayScanner, type JsonElement, type ScanProblem } from "./json-scan.js";
import type { RawRecord, ReaderOutcome } from "./types.js";

/** Text held to name what a file that is not an array holds (a string, a number...). */
const NOT_ARRAY_CAP = 16 * 1024 * 1024;

export function* readJsonArray(
  input: Iterable<Piece>,
  decoder: SeedDecoder,
  out: ReaderOutcome,
): Generator<RawRecord> {
  const scanner = new JsonArrayScanner();
  let head = ""; // text before the first character that is not white space is known
  let decided = false;
  let notParsed: ScanProblem | null = null;
  for (const { text, final } of input) {
    let next = text;
    if (!decided) {
      head += text;
      const first = /\S/.exec(head);
      if (first === null && !final) continue;
      const c = first?.[0];
      if (c !== undefined && c !== "[") {
        // Not an array: name what it is once the whole value is known (or too long to hold).
        if (c !== "{" && !final && head.length < NOT_ARRAY_CAP) continue;
        const named = notAnArray(head, final);
        if (named !== null) {
          out.fileProblem = { field: null, ...named };
          return;
        }
      }
      decided = true;
      next = head;
      head = "";
    }
    const scan = scanner.feed(next, final);
    let problem: ScanProblem | null;
    for (;;) {
      const step = scan.next();
      if (step.done) {
        problem = step.value;
        break;
      }
      // A structural problem anywhere wins over an element JSON.parse refuses, as when the
      // whole file was scanned first: elements are still scanned, no longer parsed.
      if (notParsed !== null) continue;
      const record = toRecord(step.value, decoder);
      if ("reason" in record) notParsed = record;
      else yield record;
    }
    if (problem !== null) {
      out.fileProblem = { field: null, line: problem.line, reason: `not valid JSON: ${problem.reason}` };
      return;
    }
  }
  if (notParsed !== null) out.fileProblem = { field: null, ...notParsed };
}

function toRecord(el: JsonElement, decoder: SeedDecoder): RawRecord | ScanProblem {
  const { line } = el;
  if (decoder.spansBadLine(line, el.endLine))
    return { line, fields: null, problems: [{ field: null, reason: BAD_ENCODING }] };
  let value: unknown;
  try {
    value = JSON.parse(el.text);
  } catch (e) {
    const message = (e as Error).message;
    return { line: errorLine(message, el.text, line), reason: `not valid JSON: ${message}` };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const repeated = repeatedKey(el.text);
    const problems = repeated === null ? [] : [{ field: repeated, reason: REPEATED_KEY }];
    return { line, fields: value as Record<string, unknown>, problems };
  }
  return {
    line,
    fields: null,
    problems: [{ field: null, reason: `expected a JSON object, got ${jsonTypeName(value)}` }],
  };
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
 * array; null otherwise (an array, or text that is not JSON: the scanner says where it breaks).
 * An object first is named even when more follows: that is NDJSON in a .json file. `whole`:
 * the text is the whole file (else only an object is named).
 */
function notAnArray(text: string, whole: boolean): { line: number; reason: string } | null {
  const match = /\S/.exec(text);
  const first = match?.[0];
  if (match === null || first === undefined || first === "[") return null;
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
