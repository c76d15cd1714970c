/** `tas-sync dbt-sources`: the dbt sources.yml of the mirror (src/analytics/dbt-sources.ts), to a file or stdout. */
import { writeFileSync } from "node:fs";
import { dbtSources } from "../analytics/dbt-sources.js";
import { toYaml } from "../analytics/yaml.js";
import { parseDuration } from "../config/duration.js";
import { type DatabaseTarget, databaseTarget, staleAfterOf, syncEveryOf } from "../config/index.js";
import { UserError } from "../errors.js";
import { type CommandRun, type Flags, UsageError } from "./types.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const runDbtSources: CommandRun = async (ctx) => {
  const cfg = ctx.config();
  const target = typeof ctx.flags.db === "string" ? databaseTarget(ctx.flags.db) : cfg.database;
  const sourceName = nameFlag(ctx.flags, "source-name") ?? "tas_sync";
  const schema = nameFlag(ctx.flags, "schema") ?? (target.dialect === "postgres" ? "public" : "main");
  let doc: ReturnType<typeof dbtSources>;
  try {
    doc = dbtSources({
      dialect: target.dialect,
      sourceName,
      database: databaseName(target),
      schema,
      companies: cfg.companies.map((c) => ({
        companyId: c.id,
        everyMs: syncEveryOf(cfg, c),
        staleAfterMs: staleAfterOf(cfg, c),
      })),
      reports: cfg.companies.some((c) => c.reportIds.length > 0),
      warnAfterMs: durationFlag(ctx.flags, "warn-after") ?? cfg.dbt.warnAfter,
      errorAfterMs: durationFlag(ctx.flags, "error-after") ?? cfg.dbt.errorAfter,
    });
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw err;
  }
  const text = `# dbt source properties of the tas-sync mirror (${target.dialect}), written by tas-sync dbt-sources.\n# Descriptions: docs/reference/tables.md. Freshness: each company's schedule (docs/analytics.md).\n${toYaml(doc)}`;
  const file = ctx.flags.out;
  if (typeof file !== "string") {
    process.stdout.write(text);
    return 0;
  }
  try {
    writeFileSync(file, text);
  } catch (err) {
    throw new UserError(`cannot write ${file}: ${(err as Error).message}`);
  }
  ctx.out(`wrote ${file}: source ${sourceName}, ${countTables(doc)} tables and views`);
  return 0;
};

/** The database dbt connects to: PostgreSQL's from the URL (its user's name when the URL has none). */
function databaseName(target: DatabaseTarget): string | undefined {
  if (target.dialect === "sqlite") return undefined;
  const url = new URL(target.url.reveal());
  const name = decodeURIComponent(url.pathname.replace(/^\//, ""));
  return name || decodeURIComponent(url.username) || "postgres";
}

function durationFlag(flags: Flags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const ms = typeof v === "string" ? parseDuration(v) : null;
  if (ms === null || ms < 60_000)
    throw new UsageError(
      `--${name} expects a duration of at least a minute ("30m", "2h", "1d"), got "${String(v)}"`,
    );
  return ms;
}

function nameFlag(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !NAME.test(v))
    throw new UsageError(
      `--${name} expects a name of letters, digits and _ (not starting with a digit), got "${String(v)}"`,
    );
  return v;
}

function countTables(doc: ReturnType<typeof dbtSources>): number {
  const sources = (doc as { sources: { tables: unknown[] }[] }).sources;
  return sources[0]?.tables.length ?? 0;
}
