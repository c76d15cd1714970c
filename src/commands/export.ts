/** `tas-sync export --format parquet|duckdb --out PATH`: wiring of src/analytics/export.ts. */
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { EXPORT_FORMATS, type ExportFormat, exportStore } from "../analytics/export.js";
import { exportRelations } from "../analytics/export-plan.js";
import { databaseTarget } from "../config/index.js";
import { openStore } from "../store/open.js";
import type { Store } from "../store/port.js";
import { formatDuration, Progress } from "./progress.js";
import { type CommandRun, type Flags, UsageError } from "./types.js";

export const runExport: CommandRun = async (ctx) => {
  const format = formatFlag(ctx.flags);
  const out = ctx.flags.out;
  if (typeof out !== "string" || out.trim() === "")
    throw new UsageError(`missing --out PATH (${format === "parquet" ? "a folder" : "a .duckdb file"})`);
  checkOut(resolve(out), format);
  let relations: ReturnType<typeof exportRelations>;
  try {
    relations = exportRelations(tablesFlag(ctx.flags));
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`--tables: ${err.message}`);
    throw err;
  }
  const database = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : ctx.config().database;
  const store = await openStore(database, { readonly: true });
  const started = Date.now();
  let bar: Progress | null = null;
  try {
    const before = await writes(store);
    const results = await exportStore({
      store,
      relations,
      format,
      out: resolve(out),
      signal: ctx.stopSignal,
      onProgress: (done, total) => {
        bar ??= new Progress(total, "export");
        bar.update(done);
      },
    });
    (bar as Progress | null)?.finish();
    for (const r of results)
      for (const [column, n] of Object.entries(r.unreadable))
        ctx.out(`warning: ${r.name}.${column}: ${n} value(s) not of the column's type, written as NULL`);
    if ((await writes(store)) !== before)
      ctx.out(
        "warning: a sync wrote to the database during the export: tables may come from different syncs (export again for one consistent copy)",
      );
    const rows = results.reduce((n, r) => n + r.rows, 0);
    ctx.out(
      `exported ${results.length} tables and views, ${rows} rows, to ${out} (${format}) in ${formatDuration((Date.now() - started) / 1000)}`,
    );
    return 0;
  } catch (err) {
    if (ctx.stopSignal.aborted) {
      ctx.out("export stopped: the files of the tables not finished were removed");
      return 1;
    }
    throw err;
  } finally {
    await store.close();
  }
};

/** The output's place can take it: a folder (or none yet) for Parquet, a file in a folder for DuckDB. */
function checkOut(out: string, format: ExportFormat): void {
  const kind = (path: string) => {
    try {
      return statSync(path).isDirectory() ? "folder" : "file";
    } catch {
      return "none";
    }
  };
  if (format === "parquet" && kind(out) === "file")
    throw new UsageError(`--out ${out} is a file: Parquet needs a folder (one file per table)`);
  if (format === "duckdb" && kind(out) === "folder")
    throw new UsageError(`--out ${out} is a folder: DuckDB needs a file name (e.g. ${out}/tas.duckdb)`);
  if (format === "duckdb" && kind(dirname(out)) !== "folder")
    throw new UsageError(`--out ${out}: the folder ${dirname(out)} does not exist`);
}

/** What moves when a sync writes: the companies' write generations and the runs. */
async function writes(store: Store): Promise<string> {
  const cursor = await store.sql.query(
    "SELECT (SELECT coalesce(sum(write_generation), 0) FROM sync_state), (SELECT coalesce(max(id), 0) FROM sync_runs), (SELECT count(*) FROM sync_runs WHERE finished_at IS NULL)",
  );
  const parts: string[] = [];
  for await (const row of cursor.rows) parts.push(row.map(String).join("/"));
  return parts.join();
}

function formatFlag(flags: Flags): ExportFormat {
  const given = flags.format;
  if (given === undefined) throw new UsageError(`missing --format (${EXPORT_FORMATS.join(" or ")})`);
  if (typeof given !== "string" || !EXPORT_FORMATS.includes(given as ExportFormat))
    throw new UsageError(`--format expects ${EXPORT_FORMATS.join(" or ")}, got "${String(given)}"`);
  return given as ExportFormat;
}

function tablesFlag(flags: Flags): string[] | undefined {
  const given = flags.tables;
  if (given === undefined) return undefined;
  const names = String(given)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new UsageError("--tables expects names separated by commas, e.g. plans,plan_versions");
  return names;
}
