/** NDJSON: one JSON object per physical line; blank lines are skipped but keep their number. */
import { BAD_ENCODING, type Piece, type SeedDecoder } from "./decode.js";
import { jsonTypeName } from "./fields.js";
import { REPEATED_KEY, repeatedKey } from "./json-keys.js";
import type { RawRecord, ReaderOutcome } from "./types.js";

export function* readNdjson(
  input: Iterable<Piece>,
  decoder: SeedDecoder,
  _out: ReaderOutcome,
): Generator<RawRecord> {
  let line = 1;
  for (const { text, final } of input) {
    let start = 0;
    // A piece ends at a line end: the empty text after it belongs to the next piece, except the last.
    for (; final ? start <= text.length : start < text.length; line++) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      const content = text.slice(start, end);
      start = end + 1;
      if (decoder.badLines.has(line)) {
        yield { line, fields: null, problems: [{ field: null, reason: BAD_ENCODING }] };
      } else if (content.trim() !== "") {
        yield parseLine(line, content);
      }
    }
  }
}

function parseLine(line: number, content: string): RawRecord {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (e) {
    return {
      line,
      fields: null,
      problems: [{ field: null, reason: `not valid JSON: ${(e as Error).message}` }],
    };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      line,
      fields: null,
      problems: [{ field: null, reason: `expected a JSON object, got ${jsonTypeName(value)}` }],
    };
  }
  const repeated = repeatedKey(content);
  const problems = repeated === null ? [] : [{ field: repeated, reason: REPEATED_KEY }];
  return { line, fields: value as Record<string, unknown>, problems };
}
