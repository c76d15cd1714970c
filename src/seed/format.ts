import { escapeControls } from "../text/escape.js";
import { SeedFormatError } from "./errors.js";
import type { SeedFormat, SeedProblem, SeedWarning } from "./types.js";

const byExtension: Record<string, SeedFormat> = {
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
  ".json": "json",
  ".csv": "csv",
};

/** The seed format named by the file's extension (case-insensitive). */
export function formatFromPath(path: string): SeedFormat {
  const match = /\.[^./\\]+$/.exec(path);
  const format = match ? byExtension[match[0].toLowerCase()] : undefined;
  if (format === undefined) {
    throw new SeedFormatError(
      `cannot tell the format of seed file "${path}" from its extension: use .ndjson, .jsonl, .json or .csv`,
    );
  }
  return format;
}

/**
 * Field names and reasons quote the file, whose bytes may be anything: control characters (a
 * newline, ESC) and U+FFFD (what bytes that are not UTF-8 became) are shown as escapes, so a
 * report is one line per problem and a seed file cannot drive the terminal.
 */
export const safe = (s: string) => escapeControls(s, { replacement: true });

/** One line, compiler style: `scenarios.csv:14: parent_key: unknown parent_key "abc"`. */
export function formatProblem(file: string, p: SeedProblem): string {
  const where = `${safe(file)}:${p.line}:`;
  return p.field === null ? `${where} ${safe(p.reason)}` : `${where} ${safe(p.field)}: ${safe(p.reason)}`;
}

/** `scenarios.ndjson:3: warning: descripton: unknown field (did you mean "description"?), ignored; in 2 rows`. */
export function formatWarning(file: string, w: SeedWarning): string {
  const rows = w.rows > 1 ? `; in ${w.rows} rows` : "";
  return `${safe(file)}:${w.line}: warning: ${safe(w.field)}: ${safe(w.reason)}, ignored${rows}`;
}
