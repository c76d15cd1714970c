import { SeedFormatError } from "./errors.js";
import type { SeedFormat, SeedProblem } from "./types.js";

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

/** One line, compiler style: `scenarios.csv:14: parent_key: unknown parent_key "abc"`. */
export function formatProblem(file: string, p: SeedProblem): string {
  // Reasons can quote file content; keep the report one line per problem.
  const reason = p.reason.replace(/[\r\n]+/g, " ");
  return p.field === null ? `${file}:${p.line}: ${reason}` : `${file}:${p.line}: ${p.field}: ${reason}`;
}
