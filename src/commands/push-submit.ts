/**
 * `tas-sync push FILE` past validation: record the rows in the outbox, queue the ready ones,
 * and with --wait run the workers in this process until the batch settles. Without --wait,
 * say whether a daemon consumes the push queue (a push nobody consumes waits forever).
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config/index.js";
import { valueWithin } from "../deadline.js";
import type { HeldCompany, StatusCounts } from "../push/operations.js";
import { type LoadedSeed, type Submitted, submit } from "../push/submit.js";
import { Progress } from "./progress.js";
import { type PushEnv, withPushQueue } from "./push-env.js";
import type { CommandContext } from "./types.js";

export async function submitSeed(ctx: CommandContext, cfg: Config, seed: LoadedSeed): Promise<number> {
  return withPushQueue(cfg, await ctx.logger(), (env) => run(ctx, cfg, env, seed));
}

/** Record the file, queue what is ready, and with --wait run the workers until it settles. */
async function run(ctx: CommandContext, cfg: Config, env: PushEnv, seed: LoadedSeed): Promise<number> {
  const { store, queue, ops } = env;
  const progress = { bar: null as Progress | null };
  const onSubmitted = async (submitted: Submitted) => {
    sayRecorded(ctx, submitted);
    saySkipped(ctx, seed, submitted.batchId);
    const counts = await store.outbox.counts(submitted.batchId);
    if (!ctx.flags.wait && counts.pending + counts.queued > 0) await sayWhoConsumes(ctx, queue);
    if (ctx.flags.wait) {
      progress.bar = new Progress(submitted.recorded, "push");
      await sayWhatIsHeld(ctx, queue);
    }
  };
  const { submitted, waited } = await submit(ops, seed, {
    batchId: randomUUID(),
    onSubmitted,
    ...(ctx.flags.wait
      ? {
          wait: {
            // Its summary counts the failures; each row's line is for -v or a log file.
            startWorker: () => queue.startWorker({ rowsLogLevel: "info" }),
            reconcileEveryMs: cfg.push.reconcileEveryMs,
            signal: ctx.stopSignal,
            onProgress: (settled: number) => progress.bar?.update(settled),
            // Bounded: while Redis is away the call would block, and so would Ctrl-C.
            check: async () =>
              (await valueWithin(queue.queue.isPaused(), 3000)) === true
                ? "the push queue is paused (in the dashboard); run tas-sync resume-push"
                : null,
          },
        }
      : {}),
  });
  if (!waited) return 0;
  progress.bar?.finish();
  const held = await store.outbox.heldCompanies();
  printSummary(
    ctx,
    waited.counts,
    await store.outbox.failureReasons(submitted.batchId),
    held,
    invalidRows(seed),
  );
  if (!waited.done) {
    ctx.out(
      `stopped waiting: ${waited.reason}; unsettled rows stay queued (run push --wait again, or the daemon)`,
    );
    return 1;
  }
  // Rows of the file that failed in an earlier push are not "done" either (see Exit codes).
  const c = waited.counts;
  return c.failed + c.blocked + c.held + submitted.skipped.failed > 0 ? 1 : 0;
}

function sayRecorded(ctx: CommandContext, submitted: Submitted): void {
  const s = submitted.skipped;
  ctx.out(
    `recorded ${submitted.recorded} row(s), queued ${submitted.enqueued} now (children follow their parents); ` +
      `skipped ${s.created + s.exists + s.failed} settled earlier (created ${s.created}, exists ${s.exists}, failed ${s.failed})`,
  );
  if (submitted.changedPayload.length) {
    ctx.out(
      `note: ${submitted.changedPayload.length} key(s) were recorded earlier with a different payload; the recorded one is kept (e.g. ${submitted.changedPayload[0]})`,
    );
  }
}

/** Rows of the file left out as invalid (--skip-invalid): distinct lines with a problem. */
function invalidRows(seed: LoadedSeed): number {
  return new Set(seed.problems.map((p) => p.line)).size;
}

/** --skip-invalid: how many rows were left out, and where they are recorded. */
function saySkipped(ctx: CommandContext, seed: LoadedSeed, batchId: string): void {
  const n = invalidRows(seed);
  if (n === 0) return;
  ctx.out(
    `skipped ${n} invalid row(s) (${seed.problems.length} problem(s), listed on stderr), recorded in seed_rejections: ` +
      `tas-sync query "SELECT line, key, field, reason FROM seed_rejections WHERE batch_id = '${batchId}' ORDER BY line"`,
  );
}

function printSummary(
  ctx: CommandContext,
  c: StatusCounts,
  reasons: { code: string; n: number }[],
  held: HeldCompany[],
  invalid = 0,
): void {
  ctx.out(
    `created ${c.created}, already existed ${c.exists}, failed ${c.failed}${c.blocked ? `, waiting for a parent's id ${c.blocked}` : ""}${c.held ? `, held ${c.held}` : ""}${c.pending + c.queued ? `, unsettled ${c.pending + c.queued}` : ""}${invalid ? `, skipped as invalid ${invalid} (seed_rejections)` : ""}`,
  );
  for (const r of reasons) ctx.out(`  failed ${r.code}: ${r.n}`);
  if (c.blocked)
    ctx.out(
      "  waiting rows need their parent's scenario id: see tas-sync push-failures --blocked, then tas-sync set-parent-id KEY ID",
    );
  if (c.held)
    for (const h of held) ctx.out(`  held, company ${h.companyId} (${h.rows} row(s)): ${h.message}`);
}

/**
 * Jobs left active by a worker that is gone (kill -9, a crash) keep their locks until they
 * expire: say so, and how long, instead of seeming to hang.
 */
async function sayWhatIsHeld(ctx: CommandContext, queue: PushEnv["queue"]): Promise<void> {
  const held = await valueWithin(
    Promise.all([queue.queue.getActiveCount(), queue.queue.getWorkersCount()]),
    3000,
  );
  if (!held) return;
  const [active, workers] = held;
  if (active === 0 || workers > 0) return;
  const lockSeconds = Math.ceil(ctx.config().push.lockDurationMs / 1000);
  process.stderr.write(
    `tas-sync push: ${active} job(s) are still held by a worker that stopped without releasing them (killed?); ` +
      `they run again once their locks expire, within about ${2 * lockSeconds} s (push.lockDurationMs)\n`,
  );
}

/**
 * Whether a daemon consumes the push queue: BullMQ workers name their Redis connection, so
 * CLIENT LIST counts them (a Redis that refuses CLIENT LIST leaves it unknown).
 */
async function sayWhoConsumes(ctx: CommandContext, queue: PushEnv["queue"]): Promise<void> {
  const workers = await valueWithin(queue.queue.getWorkersCount(), 3000);
  if (workers === undefined)
    ctx.out(
      "could not tell whether a daemon consumes the push queue (Redis did not answer CLIENT LIST): " +
        "the daemon (tas-sync daemon) creates them; follow with tas-sync status",
    );
  else if (workers > 0)
    ctx.out(
      `a daemon consumes the push queue (${workers} push worker(s) connected) and will create them; follow with tas-sync status`,
    );
  else
    process.stderr.write(
      "tas-sync push: warning: no daemon consumes the push queue (no push worker is connected to its Redis): " +
        "the rows wait until one starts (tas-sync daemon); or run tas-sync push FILE --wait\n",
    );
}
