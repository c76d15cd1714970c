/**
 * `tas-sync push FILE` past validation: record the rows in the outbox, queue the ready ones,
 * and with --wait run the workers in this process until the batch settles. Without --wait,
 * say whether a daemon consumes the push queue (a push nobody consumes waits forever).
 */
import { randomUUID } from "node:crypto";
import type { Config } from "../config/index.js";
import { valueWithin } from "../deadline.js";
import { keysToRequeue, type LoadedSeed, recordSeed } from "../push/submit.js";
import { waitForBatch } from "../push/wait.js";
import type { StatusCounts } from "../store/port-outbox.js";
import { Progress } from "./progress.js";
import { type PushEnv, withPushQueue } from "./push-env.js";
import type { CommandContext } from "./types.js";

const RECONCILE_MS = 15_000;

export async function submitSeed(ctx: CommandContext, cfg: Config, seed: LoadedSeed): Promise<number> {
  return withPushQueue(cfg, await ctx.logger(), (env) => submit(ctx, env, seed));
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
  const before = await store.outbox.counts(batchId);
  if (!ctx.flags.wait) {
    if (before.pending + before.queued > 0) await sayWhoConsumes(ctx, queue);
    return 0;
  }
  const progress = new Progress(submitted.recorded, "push");
  await sayWhatIsHeld(ctx, queue);
  // Nothing unsettled: no worker (BullMQ misses its stalled-check timer if closed at once).
  if (before.pending + before.queued > 0) queue.startWorker();
  let lastReconcile = Date.now();
  const result = await waitForBatch(store.outbox, batchId, {
    signal: ctx.stopSignal,
    onProgress: (settled) => progress.update(settled),
    check: async () => {
      // Bounded: while Redis is away the call would block, and so would Ctrl-C.
      if ((await valueWithin(queue.queue.isPaused(), 3000)) === true)
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
