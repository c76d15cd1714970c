/** `tas-sync query "SQL"`: a read-only query against the database, streamed in a chosen format. */
import { databaseFromFlag, parseDuration } from "../config/index.js";
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
  const timeout = timeoutFlag(ctx.flags);
  const maxRows = atLeast(ctx.flags, "max-rows", 0);
  // With --db the config file is not read: its bounds are the defaults unless the flags say.
  const cfg = typeof ctx.flags.db === "string" ? undefined : ctx.config();
  const database = cfg ? cfg.database : databaseFromFlag(ctx.flags.db as string);
  return runQuery({
    sql,
    database,
    format,
    table: { maxCellWidth: maxWidth ?? DEFAULT_MAX_CELL_WIDTH },
    rawCsv: ctx.flags["raw-csv"] === true,
    output: process.stdout,
    signal: ctx.stopSignal,
    timeoutMs: timeout ?? cfg?.query.timeout ?? DEFAULT_TIMEOUT_MS,
    maxRows: maxRows ?? cfg?.query.maxRows ?? DEFAULT_MAX_ROWS,
    onRunning: () => {
      void ctx.logger().then((l) => l.debug({ database: database.display }, "query running"));
    },
    warn: (line) => process.stderr.write(`tas-sync query: ${line}\n`),
  });
};

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_ROWS = 1000;

/** --timeout: a duration of at least 1s, or 0 for none. */
function timeoutFlag(flags: Flags): number | undefined {
  const v = flags.timeout;
  if (v === undefined) return undefined;
  if (typeof v === "string" && v.trim() === "0") return 0;
  const ms = typeof v === "string" ? parseDuration(v) : null;
  if (ms === null || ms < 1000)
    throw new UsageError(
      `--timeout expects a duration of at least 1s like "30s" or "5m", or 0 for none, got "${String(v)}"`,
    );
  return ms;
}

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
