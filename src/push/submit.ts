/** Validate a seed file against the config, then record its rows and queue the ready ones (optionally waiting). */
import { resolve } from "node:path";
import type { Config } from "../config/index.js";
import type { SeedCheck } from "../seed/parse.js";
import { readSeedFile } from "../seed/read.js";
import type { SeedProblem, SeedRow } from "../seed/types.js";
import type { NewRequest, OutboxStore, RecordResult } from "../store/port-outbox.js";
import type { PushOps } from "./operations.js";
import { type WaitOptions, type WaitResult, waitForBatch } from "./wait.js";

/** A checked seed file: its problems, and its valid rows read from the file when asked for. */
export interface LoadedSeed {
  file: string;
  parsed: SeedCheck;
  problems: SeedProblem[];
  /** How many rows are valid (`rows()` yields as many). */
  validCount: number;
  /** The valid rows, in file order, read from the file again each time (one at a time). */
  rows(): Iterable<SeedRow & { index: number }>;
}

/**
 * Read and validate the whole file in bounded memory; rows of companies not in the config are
 * problems too. `strict`: unknown fields are problems of their rows, not warnings.
 */
export async function loadSeed(
  cfg: Config,
  file: string,
  opts: { strict?: boolean } = {},
): Promise<LoadedSeed> {
  const only = cfg.companies.length === 1 ? cfg.companies[0]?.id : undefined;
  const seed = await readSeedFile(file, {
    ...(only === undefined ? {} : { defaultCompanyId: only }),
    ...(opts.strict ? { strict: true } : {}),
    companies: new Set(cfg.companies.map((c) => c.id)),
  });
  const { check } = seed;
  return {
    file: resolve(file),
    parsed: check,
    problems: check.invalid,
    validCount: check.order.length,
    rows: () => seed.rows(),
  };
}

/** The first `n` valid rows in the order they are created (parents first), for a dry run to show. */
export function firstRows(seed: LoadedSeed, n: number): SeedRow[] {
  const first = seed.parsed.order.subarray(0, n);
  const wanted = new Set(first);
  const found = new Map<number, SeedRow>();
  for (const row of seed.rows()) {
    if (wanted.has(row.index)) found.set(row.index, row);
    if (found.size === wanted.size) break;
  }
  return [...first].flatMap((i) => found.get(i) ?? []);
}

export interface Submitted extends RecordResult {
  batchId: string;
  /** Rows given a job now (ready rows, and rows left queued by an interrupted run). */
  enqueued: number;
}

/** The seed file's rows in the store's terms, one at a time (a 100,000-row file's payloads are not all held at once). */
export function* newRequests(rows: Iterable<SeedRow>): Generator<NewRequest> {
  for (const r of rows)
    yield {
      key: r.key,
      companyId: r.companyId,
      projectId: r.projectId,
      scenarioName: r.scenarioName,
      payloadJson: JSON.stringify(r.body),
      parentKey: r.parentKey,
      line: r.line,
    };
}

/** Record the rows (and the rejected ones) in the store; nothing is queued yet. */
export async function recordSeed(
  outbox: OutboxStore,
  seed: LoadedSeed,
  batchId: string,
  now: string,
): Promise<RecordResult> {
  const result = await outbox.record(newRequests(seed.rows()), batchId, seed.file, now);
  if (seed.problems.length) await outbox.recordRejections(batchId, seed.file, seed.problems, now);
  return result;
}

export interface SubmitOptions {
  batchId: string;
  /** Told once the rows are recorded and queued, before any wait. */
  onSubmitted?: (submitted: Submitted) => void | Promise<void>;
  /**
   * Wait until the batch settles, running the workers (`startWorker`) and the reconciler meanwhile
   * (every `reconcileEveryMs`: push.reconcileEveryMs).
   */
  wait?: WaitOptions & { startWorker(): void; reconcileEveryMs: number };
}

/**
 * Record a seed file, queue what is ready (and give a job again to rows of it left queued by
 * an interrupted run), and with `wait`, run the workers until every row is settled or waits
 * for something else (a parent's id, refused credentials).
 */
export async function submit(
  ops: PushOps,
  seed: LoadedSeed,
  opts: SubmitOptions,
): Promise<{ submitted: Submitted; waited: WaitResult | null }> {
  const now = (ops.now?.() ?? new Date()).toISOString();
  const filter = { batchId: opts.batchId };
  const recorded = await recordSeed(ops.outbox, seed, opts.batchId, now);
  const { queued, ready } = await ops.reconciler.requeue({ filter });
  const submitted = { ...recorded, batchId: opts.batchId, enqueued: queued + ready };
  await opts.onSubmitted?.(submitted);
  if (!opts.wait) return { submitted, waited: null };
  const { startWorker, reconcileEveryMs, ...wait } = opts.wait;
  // Nothing open: no worker (BullMQ misses its stalled-check timer if closed at once).
  if ((await ops.outbox.unsettledCount(opts.batchId)) > 0) startWorker();
  ops.reconciler.start(reconcileEveryMs, { filter });
  try {
    return { submitted, waited: await waitForBatch(ops.outbox, opts.batchId, wait) };
  } finally {
    ops.reconciler.stop();
  }
}
