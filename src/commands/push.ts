/** `tas-sync push FILE`: validate a seed file, record it in the outbox, queue it, optionally wait. */
import { randomUUID } from "node:crypto";
import { keysToRequeue, type LoadedSeed, loadSeed, recordSeed } from "../push/submit.js";
import { waitForBatch } from "../push/wait.js";
import { formatProblem, formatWarning } from "../seed/index.js";
import type { StatusCounts } from "../store/port-outbox.js";
import { escapeControls } from "../text/escape.js";
import { Progress } from "./progress.js";
import { type PushEnv, withPushQueue } from "./push-env.js";
import { type Command, type CommandContext, UsageError } from "./types.js";

const MAX_LISTED = 50;
const RECONCILE_MS = 15_000;

export const pushCommand: Command = {
  name: "push",
  summary: "create the scenarios of a seed file, exactly once each, through the queue",
  help: `Usage: tas-sync push FILE [--wait] [--dry-run] [--skip-invalid] [--strict] [--allow-empty] [--config PATH]

FILE is NDJSON (.ndjson/.jsonl), a JSON array (.json) or CSV with a header row (.csv); one
create-scenario request per row (see README "Seed file format"). The whole file is validated
first; every bad row is reported on stderr as FILE:LINE: field: reason. A field the reader
does not know is ignored, with one warning per name on stderr
(FILE:LINE: warning: descripton: unknown field (did you mean "description"?), ignored).

Rows are recorded in the SQLite outbox (scenario_requests) and one BullMQ job is queued per
row; children are queued once their parent is created. Running the same file again creates
nothing twice: rows already created (or that failed) are skipped and counted.

Options:
  --wait           run the workers in this process until every row is settled, then print
                   the summary (without it, the running daemon does the work)
  --dry-run        validate and print what would be created; needs no Redis, writes nothing
  --skip-invalid   queue the valid rows anyway; invalid rows (and rows whose parent is
                   invalid) are recorded in seed_rejections with their reasons
  --strict         unknown fields are problems, not warnings
  --allow-empty    a file without rows is not an error: say so and exit 0

Outcomes of a row: created (the service answered with the new scenario), exists (an earlier
attempt's answer was lost and the service already has it: not created twice), failed (with
a reason code; see tas-sync push-failures).

Exit codes: 0 done (with --wait: every row created or exists); 1 some rows failed or the push
was paused; 2 invalid or empty file (nothing queued) or bad usage/config.`,
  options: {
    wait: { type: "boolean" },
    "dry-run": { type: "boolean" },
    "skip-invalid": { type: "boolean" },
    strict: { type: "boolean" },
    "allow-empty": { type: "boolean" },
  },
  positionals: 1,
  run: runPush,
};

/** Text from the file or the command line, shown without its control characters. */
const safe = (s: string) => escapeControls(s, { replacement: true });

/** Problems and warnings of the file go to stderr: stdout carries only what was done. */
const err = (line: string) => {
  process.stderr.write(`${line}\n`);
};

async function runPush(ctx: CommandContext): Promise<number> {
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
    err(`${problems.length} problem(s) in ${shown}: nothing queued (fix them, or use --skip-invalid)`);
    return 2;
  }
  if (ctx.flags["dry-run"]) return dryRun(ctx, seed, problems.length);

  return withPushQueue(cfg, ctx.logger, (env) => submit(ctx, env, seed));
}

/** Record the file, queue what is ready, and with --wait run the workers until it settles. */
async function submit(ctx: CommandContext, { store, queue }: PushEnv, seed: LoadedSeed): Promise<number> {
  const batchId = randomUUID();
  const submitted = await recordSeed(store.outbox, seed, batchId, new Date().toISOString());
  await queue.enqueue(submitted.toEnqueue);
  const s = submitted.skipped;
  ctx.out(
    `recorded ${submitted.recorded} row(s), queued ${submitted.toEnqueue.length} now (children follow their parents); ` +
      `skipped ${s.created + s.exists + s.failed} settled earlier (created ${s.created}, exists ${s.exists}, failed ${s.failed})`,
  );
  if (submitted.changedPayload.length) {
    ctx.out(
      `note: ${submitted.changedPayload.length} key(s) were recorded earlier with a different payload; the recorded one is kept (e.g. ${submitted.changedPayload[0]})`,
    );
  }
  if (!ctx.flags.wait) {
    ctx.out("the daemon (tas-sync daemon) will create them; follow with tas-sync status");
    return 0;
  }
  const progress = new Progress(submitted.recorded, "push");
  // Nothing unsettled: no worker (BullMQ misses its stalled-check timer if closed at once).
  const before = await store.outbox.counts(batchId);
  if (before.pending + before.queued > 0) queue.startWorker();
  let lastReconcile = Date.now();
  const result = await waitForBatch(store.outbox, batchId, {
    signal: ctx.stopSignal,
    onProgress: (settled) => progress.update(settled),
    check: async () => {
      // Bounded: while Redis is away the call would block, and so would Ctrl-C.
      if ((await withTimeout(queue.queue.isPaused(), 3000)) === true)
        return "the push queue is paused (the service refused our token); see the log";
      // A row left queued without a job (its job died outside the normal path) would
      // wait forever: re-add jobs now and then. Job ids make this a no-op otherwise.
      if (Date.now() - lastReconcile > RECONCILE_MS) {
        lastReconcile = Date.now();
        await queue.enqueue(await keysToRequeue(store.outbox, new Date().toISOString(), batchId));
      }
      return null;
    },
  });
  progress.finish();
  printSummary(ctx, result.counts, await store.outbox.failureReasons(batchId));
  if (!result.done) {
    ctx.out(
      `stopped waiting: ${result.reason}; unsettled rows stay queued (run push --wait again, or the daemon)`,
    );
    return 1;
  }
  // Rows of the file that failed in an earlier push are not "done" either (see Exit codes).
  return result.counts.failed + result.counts.blocked + s.failed > 0 ? 1 : 0;
}

/** The first MAX_LISTED lines on stderr, then a count of the rest. */
function listed<T>(items: T[], line: (item: T) => string, what: string): void {
  for (const item of items.slice(0, MAX_LISTED)) err(line(item));
  if (items.length > MAX_LISTED) err(`... and ${items.length - MAX_LISTED} more ${what}`);
}

function dryRun(ctx: CommandContext, seed: LoadedSeed, problems: number): number {
  const perProject = new Map<string, number>();
  for (const row of seed.valid) {
    const k = `company ${row.companyId} project ${row.projectId}`;
    perProject.set(k, (perProject.get(k) ?? 0) + 1);
  }
  for (const row of seed.valid.slice(0, 20)) {
    const child = row.parentKey ? `, child of ${safe(row.parentKey)}` : "";
    ctx.out(
      `would create ${safe(JSON.stringify(row.scenarioName))} in project ${row.projectId} (key ${safe(row.key)}${child})`,
    );
  }
  if (seed.valid.length > 20) ctx.out(`... and ${seed.valid.length - 20} more`);
  for (const [k, n] of perProject) ctx.out(`${k}: ${n} scenario(s)`);
  ctx.out(`dry run: ${seed.valid.length} valid row(s), ${problems} problem(s); nothing recorded or queued`);
  return problems ? 2 : 0;
}

export function printSummary(
  ctx: CommandContext,
  c: StatusCounts,
  reasons: { code: string; n: number }[],
): void {
  ctx.out(
    `created ${c.created}, already existed ${c.exists}, failed ${c.failed}${c.blocked ? `, waiting for a parent's id ${c.blocked}` : ""}${c.pending + c.queued ? `, unsettled ${c.pending + c.queued}` : ""}`,
  );
  for (const r of reasons) ctx.out(`  failed ${r.code}: ${r.n}`);
  if (c.blocked)
    ctx.out(
      "  waiting rows need their parent's scenario id: see tas-sync push-failures --blocked, then tas-sync set-parent-id KEY ID",
    );
}

/** The promise's value, or undefined if it takes longer than `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
