/**
 * `tas-sync push FILE` (spec in catalog/push.ts): validate a seed file and, unless --dry-run,
 * hand it to push-submit.ts (outbox, queue, --wait). A dry run loads no Redis, SQLite or HTTP.
 */
import { firstRows, type LoadedSeed, loadSeed } from "../push/submit.js";
import { formatProblem, formatWarning, safe } from "../seed/format.js";
import { type CommandContext, type CommandRun, UsageError } from "./types.js";

const MAX_LISTED = 50;

/** Problems and warnings of the file go to stderr: stdout carries only what was done. */
const err = (line: string) => {
  process.stderr.write(`${line}\n`);
};

export const runPush: CommandRun = async (ctx) => {
  const file = ctx.positionals[0];
  if (!file) throw new UsageError("missing FILE (try examples/scenarios.ndjson)");
  const cfg = ctx.config();
  const seed = await loadSeed(cfg, file, { strict: ctx.flags.strict === true });
  listed(seed.parsed.warnings, (w) => formatWarning(file, w), "warning(s)");
  const { problems } = seed;
  listed(problems, (p) => formatProblem(file, p), "problem(s)");

  const shown = safe(file);
  if (seed.parsed.total === 0 && problems.length === 0) {
    if (ctx.flags["allow-empty"]) {
      ctx.out(`${shown} has no rows: nothing to do`);
      return 0;
    }
    err(`tas-sync push: ${shown} has no rows: nothing queued (use --allow-empty if that is expected)`);
    return 2;
  }
  if (problems.length && !ctx.flags["skip-invalid"] && !ctx.flags["dry-run"]) {
    err(
      `tas-sync push: ${problems.length} problem(s) in ${shown}: nothing queued (fix them, or use --skip-invalid)`,
    );
    return 2;
  }
  if (ctx.flags["dry-run"]) return dryRun(ctx, seed, problems.length);
  const { submitSeed } = await import("./push-submit.js");
  return submitSeed(ctx, cfg, seed);
};

/** The first MAX_LISTED lines on stderr, then a count of the rest. */
function listed<T>(items: T[], line: (item: T) => string, what: string): void {
  for (const item of items.slice(0, MAX_LISTED)) err(line(item));
  if (items.length > MAX_LISTED) err(`... and ${items.length - MAX_LISTED} more ${what}`);
}

function dryRun(ctx: CommandContext, seed: LoadedSeed, problems: number): number {
  const shown = 20;
  for (const row of firstRows(seed, shown)) {
    const child = row.parentKey ? `, child of ${safe(row.parentKey)}` : "";
    ctx.out(
      `would create ${safe(JSON.stringify(row.scenarioName))} in project ${row.projectId} (key ${safe(row.key)}${child})`,
    );
  }
  if (seed.validCount > shown) ctx.out(`... and ${seed.validCount - shown} more`);
  for (const p of seed.parsed.projects)
    ctx.out(`company ${p.companyId} project ${p.projectId}: ${p.rows} scenario(s)`);
  ctx.out(`dry run: ${seed.validCount} valid row(s), ${problems} problem(s); nothing recorded or queued`);
  return problems ? 2 : 0;
}
