/** `tas-sync schema` (spec in catalog/schema.ts): the observed schema, its change log, the markdown page, acknowledgements. */
import { writeFileSync } from "node:fs";
import type { Config } from "../config/index.js";
import { UserError } from "../errors.js";
import { changeJson, changeRow, parseSince } from "../observed/changes.js";
import { observedMarkdown } from "../observed/markdown.js";
import type { SchemaChangeFilter } from "../observed/port.js";
import { groupByEntity, groupTitle, observedJson, tableRows } from "../observed/report.js";
import { openStore } from "../store/open.js";
import type { Store } from "../store/port.js";
import { formatTable } from "./table.js";
import { type CommandContext, type CommandRun, configuredCompany, intFlag, UsageError } from "./types.js";

type Mode =
  | { kind: "observed" }
  | { kind: "changes"; since: Pick<SchemaChangeFilter, "sinceAt" | "sinceRunId"> }
  | { kind: "markdown"; file: string | undefined }
  | { kind: "ack"; target: number | "all" };

/** The mode the flags ask for, or a usage error naming the flags that do not go together. */
function modeOf(ctx: CommandContext): Mode {
  const f = ctx.flags;
  const [file] = ctx.positionals;
  const given = (["changes", "markdown", "ack"] as const).filter((k) => f[k] !== undefined);
  if (given.length > 1) throw new UsageError(`--${given.join(" and --")} do not go together`);
  if (file !== undefined && !f.markdown)
    throw new UsageError(`unexpected argument "${file}" (only --markdown takes a FILE)`);
  if (f.since !== undefined && !f.changes) throw new UsageError("--since goes with --changes");
  if (f.json && (f.markdown || f.ack !== undefined))
    throw new UsageError(`--json does not go with --${f.markdown ? "markdown" : "ack"}`);
  if (f.markdown) return { kind: "markdown", file };
  if (typeof f.ack === "string") {
    if (f.ack === "all") return { kind: "ack", target: "all" };
    const id = /^\d+$/.test(f.ack) ? Number(f.ack) : Number.NaN;
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new UsageError(
        `--ack expects a change id (see tas-sync schema --changes) or "all", got "${f.ack}"`,
      );
    return { kind: "ack", target: id };
  }
  if (!f.changes) return { kind: "observed" };
  if (typeof f.since !== "string") return { kind: "changes", since: {} };
  const since = parseSince(f.since);
  if (!since)
    throw new UsageError(
      `--since expects a date (2025-03-01, or an ISO 8601 time with its zone) or a run id, got "${f.since}"`,
    );
  return { kind: "changes", since: "runId" in since ? { sinceRunId: since.runId } : { sinceAt: since.at } };
}

export const runSchema: CommandRun = async (ctx) => {
  const mode = modeOf(ctx);
  const cfg = ctx.config();
  const companyId = configuredCompany(cfg, intFlag(ctx.flags, "company"));
  const store = await openStore(cfg.database);
  try {
    switch (mode.kind) {
      case "observed":
        return await printObserved(ctx, store, companyId, cfg.schema.valueCap);
      case "changes":
        return await printChanges(ctx, store, { companyId, ...mode.since });
      case "markdown":
        return await writeMarkdown(ctx, store, companyId, cfg, mode.file);
      case "ack":
        return await acknowledge(ctx, store, companyId, mode.target);
    }
  } finally {
    await store.close();
  }
};

async function printObserved(ctx: CommandContext, store: Store, companyId: number | undefined, cap: number) {
  const paths = await store.schema.observed({ companyId });
  if (ctx.flags.json) {
    ctx.out(JSON.stringify(observedJson(paths), null, 2));
    return 0;
  }
  const groups = groupByEntity(paths);
  if (groups.length === 0)
    ctx.out("nothing observed yet: tas-sync sync observes every new or changed record");
  for (const [i, g] of groups.entries()) {
    ctx.out(`${i ? "\n" : ""}${groupTitle(g)}`);
    ctx.out(formatTable(tableRows(g, cap), 72));
  }
  return 0;
}

async function printChanges(ctx: CommandContext, store: Store, filter: SchemaChangeFilter) {
  const changes = await store.schema.changes(filter);
  if (ctx.flags.json) ctx.out(JSON.stringify(changes.map(changeJson), null, 2));
  else ctx.out(formatTable(changes.map(changeRow), 40));
  return 0;
}

async function writeMarkdown(
  ctx: CommandContext,
  store: Store,
  companyId: number | undefined,
  cfg: Config,
  file: string | undefined,
) {
  const paths = await store.schema.observed({ companyId });
  const companyIds = companyId === undefined ? [...new Set(paths.map((p) => p.companyId))] : [companyId];
  const page = observedMarkdown(paths, {
    companyIds,
    valueCap: cfg.schema.valueCap,
    at: new Date().toISOString(),
  });
  if (file === undefined) {
    ctx.out(page);
    return 0;
  }
  try {
    writeFileSync(file, `${page}\n`);
  } catch (err) {
    throw new UserError(`cannot write ${file}: ${(err as Error).message}`);
  }
  const entities = new Set(paths.map((p) => p.entity)).size;
  const distinct = new Set(paths.filter((p) => p.path !== "").map((p) => `${p.entity}\u0000${p.path}`));
  ctx.out(`wrote ${file}: ${entities} entities, ${distinct.size} paths`);
  return 0;
}

async function acknowledge(
  ctx: CommandContext,
  store: Store,
  companyId: number | undefined,
  target: number | "all",
) {
  const now = new Date().toISOString();
  if (target === "all") {
    const n = await store.schema.acknowledge({ companyId }, now);
    ctx.out(`acknowledged ${n} open change(s)${companyId === undefined ? "" : ` of company ${companyId}`}`);
    return 0;
  }
  const [change] = await store.schema.changes({
    id: target,
    ...(companyId === undefined ? {} : { companyId }),
  });
  if (!change)
    throw new UsageError(
      `no schema change ${target}${companyId === undefined ? "" : ` of company ${companyId}`} (see tas-sync schema --changes)`,
    );
  const what = `${change.entity} ${change.path} ${change.kind}`;
  if (change.acknowledgedAt !== null) {
    ctx.out(`change ${target} (${what}) was acknowledged already, at ${change.acknowledgedAt}`);
    return 0;
  }
  if ((await store.schema.acknowledge({ id: target }, now)) === 0) {
    ctx.out(`change ${target} (${what}) was acknowledged meanwhile`);
    return 0;
  }
  ctx.out(`acknowledged change ${target} (${what}, company ${change.companyId}, run ${change.runId})`);
  return 0;
}
