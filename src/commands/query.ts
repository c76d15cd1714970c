/** `tas-sync query "SQL"`: a read-only query against the database, streamed in a chosen format. */
import { databaseFromFlag } from "../config/index.js";
import {
  DEFAULT_MAX_CELL_WIDTH,
  isOutputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
} from "./format/defaults.js";
import { runQuery } from "./query-run.js";
import { atLeast, type CommandRun, type Flags, UsageError } from "./types.js";

export const runQueryCommand: CommandRun = async (ctx) => {
  const sql = ctx.positionals[0];
  if (!sql) throw new UsageError('missing the SQL text, e.g. tas-sync query "SELECT * FROM sync_runs"');
  const format = formatFlag(ctx.flags);
  const maxWidth = atLeast(ctx.flags, "max-width", 4);
  const database = typeof ctx.flags.db === "string" ? databaseFromFlag(ctx.flags.db) : ctx.config().database;
  return runQuery({
    sql,
    database,
    format,
    table: { maxCellWidth: maxWidth ?? DEFAULT_MAX_CELL_WIDTH },
    output: process.stdout,
    signal: ctx.stopSignal,
  });
};

/** --format, with --json as the old name of ndjson. */
function formatFlag(flags: Flags): OutputFormat {
  const given = flags.format;
  if (given === undefined) return flags.json ? "ndjson" : "table";
  if (typeof given !== "string" || !isOutputFormat(given))
    throw new UsageError(`--format expects one of ${OUTPUT_FORMATS.join(", ")}, got "${String(given)}"`);
  if (flags.json && given !== "ndjson")
    throw new UsageError(`--json means --format ndjson: it cannot be combined with --format ${given}`);
  return given;
}
