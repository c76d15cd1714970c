/** A JSON array of row objects; a syntax error anywhere makes the whole file one problem. */
import { BAD_ENCODING, type DecodedText, spansBadLine } from "./decode.js";
import { jsonTypeName } from "./fields.js";
import { REPEATED_KEY, repeatedKey } from "./json-keys.js";
import { scanJsonArray } from "./json-scan.js";
import type { RawRecord, ReadRecords } from "./types.js";

export function readJsonArray(decoded: DecodedText): ReadRecords {
  const notArray = notAnArray(decoded.text);
  if (notArray !== null) return { records: [], fileProblem: { field: null, ...notArray } };
  const scan = scanJsonArray(decoded.text);
  if (!("elements" in scan)) {
    return {
      records: [],
      fileProblem: { line: scan.line, field: null, reason: `not valid JSON: ${scan.reason}` },
    };
  }
  const records: RawRecord[] = [];
  for (const el of scan.elements) {
    const { line } = el;
    if (spansBadLine(decoded, line, el.endLine)) {
      records.push({ line, fields: null, problems: [{ field: null, reason: BAD_ENCODING }] });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(el.text);
    } catch (e) {
      const message = (e as Error).message;
      return {
        records: [],
        fileProblem: {
          line: errorLine(message, el.text, line),
          field: null,
          reason: `not valid JSON: ${message}`,
        },
      };
    }
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const repeated = repeatedKey(el.text);
      const problems = repeated === null ? [] : [{ field: repeated, reason: REPEATED_KEY }];
      records.push({ line, fields: value as Record<string, unknown>, problems });
    } else {
      records.push({
        line,
        fields: null,
        problems: [{ field: null, reason: `expected a JSON object, got ${jsonTypeName(value)}` }],
      });
    }
  }
  return { records, fileProblem: null };
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
 * An object first is named even when more follows: that is NDJSON in a .json file.
 */
function notAnArray(text: string): { line: number; reason: string } | null {
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
  if (kind === null) return null;
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
