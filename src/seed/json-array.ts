/** A JSON array of row objects; a syntax error anywhere makes the whole file one problem. */
import { BAD_ENCODING, type DecodedText, spansBadLine } from "./decode.js";
import { jsonTypeName } from "./fields.js";
import { scanJsonArray } from "./json-scan.js";
import type { RawRecord, ReadRecords } from "./types.js";

export function readJsonArray(decoded: DecodedText): ReadRecords {
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
      records.push({ line, fields: value as Record<string, unknown>, problems: [] });
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

/** Line of a JSON.parse error inside a slice, when the engine's message gives a position. */
function errorLine(message: string, slice: string, firstLine: number): number {
  const byLine = /\(line (\d+) column \d+\)/.exec(message);
  if (byLine) return firstLine + Number(byLine[1]) - 1;
  const byPos = /at position (\d+)/.exec(message);
  if (!byPos) return firstLine;
  const before = slice.slice(0, Number(byPos[1]));
  return firstLine + before.split("\n").length - 1;
}
