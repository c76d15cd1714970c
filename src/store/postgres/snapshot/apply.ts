/**
 * One company's snapshot in one transaction, under the company's advisory lock: two processes
 * applying the same company take turns (the second then finds the first's snapshot applied and
 * is superseded if the first was newer). Readers see the whole snapshot or none of it. An abort
 * cancels the statement running (pg_cancel_backend) and rolls everything back.
 */
import { setImmediate } from "node:timers/promises";
import type { RunEnd } from "../../port-runs.js";
import type { ApplyResult, SnapshotMeta, SnapshotOps } from "../../port-snapshot.js";
import type { Pool } from "../pool.js";
import { finishRun } from "../runs/record.js";
import { run } from "../sql.js";
import { isConnectionError } from "../tx.js";
import { BATCH_SIZE, SnapshotWriter } from "./writer.js";

/** Operations between two turns of the event loop while a batch is being written. */
const YIELD_EVERY = 50;

export async function applySnapshot(
  pool: Pool,
  meta: SnapshotMeta,
  ops: SnapshotOps,
  signal?: AbortSignal,
  batchSize = BATCH_SIZE,
): Promise<ApplyResult> {
  signal?.throwIfAborted();
  const client = await pool.connect();
  let broken = false;
  let pid: number | undefined;
  const cancel = () => {
    if (pid !== undefined) pool.query("SELECT pg_cancel_backend($1)", [pid]).catch(() => {});
  };
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
    const began = performance.now();
    await client.query("BEGIN");
    let writer: SnapshotWriter | undefined;
    try {
      await client.query("SELECT pg_advisory_xact_lock($1)", [meta.companyId]);
      const { rows } = await run<{
        startedAt: string | null;
        runId: number | null;
        generation: number;
        seenAt: string | null;
        rejectionsRunId: string | null;
      }>(
        client,
        `SELECT applied_started_at AS "startedAt", applied_run_id AS "runId", write_generation AS generation,
           plans_seen_at AS "seenAt", rejections_run_id AS "rejectionsRunId" FROM sync_state WHERE company_id = $1`,
        [meta.companyId],
      );
      const state = rows[0];
      if (state?.startedAt && state.startedAt >= meta.startedAt) {
        await client.query("ROLLBACK");
        return {
          applied: false,
          reason: "superseded",
          newerStartedAt: state.startedAt,
          newerRunId: state.runId,
        };
      }
      if (Number(state?.generation ?? 0) !== meta.generation) {
        await client.query("ROLLBACK");
        return { applied: false, reason: "stale" };
      }
      const touched = new Set<number>();
      writer = new SnapshotWriter(
        client,
        meta,
        {
          companyId: meta.companyId,
          at: meta.startedAt,
          runId: meta.runId,
          seenAt: state?.seenAt ?? null,
          touchedCompany: (c) => touched.add(c),
        },
        {
          companyId: meta.companyId,
          runId: meta.runId,
          at: meta.startedAt,
          previousRunId: state?.rejectionsRunId == null ? null : Number(state.rejectionsRunId),
        },
        batchSize,
      );
      let step = ops.next();
      let n = 0;
      while (!step.done) {
        signal?.throwIfAborted();
        await writer.add(step.value);
        // Let the batch being written go on: its replies arrive as I/O, which awaiting an
        // operation (a microtask) never lets in.
        if (writer.busy && ++n % YIELD_EVERY === 0) await setImmediate();
        step = ops.next();
      }
      await writer.finish();
      const end: RunEnd = { ...step.value.run, finishedAt: meta.finishedAt() };
      await finishRun(client, meta.runId, end);
      await run(
        client,
        `INSERT INTO sync_state (company_id, applied_started_at, applied_run_id, plans_listed_at, plans_seen_at,
           rejections_run_id, write_generation)
         VALUES ($1, $2, $3, $4, $5, $6, 1)
         ON CONFLICT (company_id) DO UPDATE SET applied_started_at = excluded.applied_started_at,
           applied_run_id = excluded.applied_run_id,
           plans_listed_at = coalesce(excluded.plans_listed_at, sync_state.plans_listed_at),
           plans_seen_at = coalesce(excluded.plans_seen_at, sync_state.plans_seen_at),
           rejections_run_id = coalesce(excluded.rejections_run_id, sync_state.rejections_run_id),
           write_generation = sync_state.write_generation + 1`,
        [
          meta.companyId,
          meta.startedAt,
          meta.runId,
          step.value.plansListed ? meta.startedAt : null,
          step.value.plansSeen ? meta.startedAt : null,
          step.value.rejections ? meta.runId : null,
        ],
      );
      touched.delete(meta.companyId);
      if (touched.size)
        await run(
          client,
          "UPDATE sync_state SET write_generation = write_generation + 1 WHERE company_id = ANY($1::bigint[])",
          [[...touched]],
        );
      signal?.throwIfAborted();
      await client.query("COMMIT");
      return { applied: true, end, writeMs: performance.now() - began };
    } catch (err) {
      // A batch still being written would go on after the ROLLBACK, outside any transaction.
      await writer?.settle();
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      // A statement cancelled by the abort fails with "canceling statement": say why instead.
      if (signal?.aborted) throw signal.reason;
      throw err;
    }
  } catch (err) {
    broken ||= isConnectionError(err);
    throw err;
  } finally {
    signal?.removeEventListener("abort", cancel);
    // A cancel sent by the abort may still arrive: never hand this session to anyone else.
    client.release(broken || signal?.aborted === true);
  }
}
