/** `tas-sync query "SQL"`: a read-only query against the database, streamed in a chosen format. */
import { databaseTarget } from "../config/index.js";
import { DEFAULT_MAX_CELL_WIDTH, isOutputFormat, OUTPUT_FORMATS, type OutputFormat } from "./format/index.js";
import { runQuery } from "./query-run.js";
import { type Command, type Flags, intFlag, UsageError } from "./types.js";

export const queryCommand: Command = {
  name: "query",
  summary: "run a read-only SQL query against the database and print the rows",
  help: `Usage: tas-sync query "SQL" [--format table|csv|json|ndjson] [--db PATH|URL] [--max-width N]

Opens the database read-only (on PostgreSQL: a READ ONLY transaction) and prints the rows of
one SELECT, WITH or PRAGMA statement.
Rows are streamed: a result of millions of rows prints in bounded memory.
Example: tas-sync query "SELECT platform, count(*) FROM plans WHERE deleted_at IS NULL GROUP BY 1"

Options:
  --db PATH|URL       SQLite file or postgres:// URL (default: the config's "database")
  --format FORMAT     table (default): aligned columns for people; NULL shows as NULL, control
                        characters as escapes (\\x1b, \\n, \\t); long cells end in "…"; the
                        widths come from the first 1000 rows
                      csv: RFC 4180 with a header row; NULL is an empty field, '' is ""
                      json: one JSON array of row objects; NULL is null
                      ndjson: one JSON object per line
  --json              the same as --format ndjson
  --max-width N       widest table cell, in terminal columns (default ${DEFAULT_MAX_CELL_WIDTH})

csv, json and ndjson carry the values exactly; 64-bit integers are exact; a blob is X'..'.
A statement that writes (INSERT, UPDATE, DELETE, CREATE, DROP...) is refused.

Exit codes: 0 done (also when the reader of the output went away, as with | head);
            2 bad SQL, a statement that writes, a missing database or bad usage; 130 Ctrl-C.`,
  options: {
    db: { type: "string" },
    json: { type: "boolean" },
    format: { type: "string" },
    "max-width": { type: "string" },
  },
  positionals: 1,
  run: async (ctx) => {
    const sql = ctx.positionals[0];
    if (!sql) throw new UsageError('missing the SQL text, e.g. tas-sync query "SELECT * FROM sync_runs"');
    const format = formatFlag(ctx.flags);
    const maxWidth = intFlag(ctx.flags, "max-width");
    if (maxWidth !== undefined && maxWidth < 4)
      throw new UsageError(`--max-width must be at least 4, got ${maxWidth}`);
    const database = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : ctx.config().database;
    return runQuery({
      sql,
      database,
      format,
      table: { maxCellWidth: maxWidth ?? DEFAULT_MAX_CELL_WIDTH },
      output: process.stdout,
      signal: ctx.stopSignal,
    });
  },
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
