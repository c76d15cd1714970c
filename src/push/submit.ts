/** Validate a seed file against the config, then record its rows and queue the ready ones (optionally waiting). */
import { resolve } from "node:path";
import type { Config } from "../config/index.js";
import { readSeedFile, type SeedParseResult, type SeedProblem, type SeedRow } from "../seed/index.js";
import type { NewRequest, OutboxStore, RecordResult } from "../store/port-outbox.js";
import type { PushOps } from "./operations.js";
import { type WaitOptions, type WaitResult, waitForBatch } from "./wait.js";

export interface LoadedSeed {
  file: string;
  parsed: SeedParseResult;
  valid: SeedRow[];
  problems: SeedProblem[];
}

/**
 * Read and validate the whole file; rows of companies not in the config are problems too.
 * `strict`: unknown fields are problems of their rows, not warnings.
 */
export async function loadSeed(
  cfg: Config,
  file: string,
  opts: { strict?: boolean } = {},
): Promise<LoadedSeed> {
  const only = cfg.companies.length === 1 ? cfg.companies[0]?.id : undefined;
  const parsed = await readSeedFile(file, {
    ...(only === undefined ? {} : { defaultCompanyId: only }),
    ...(opts.strict ? { strict: true } : {}),
  });
  const configured = new Set(cfg.companies.map((c) => c.id));
  const problems = [...parsed.invalid];
  const badKeys = new Set<string>();
  for (const row of parsed.valid) {
    if (!configured.has(row.companyId)) {
      problems.push({
        line: row.line,
        key: row.key,
        field: "company_id",
        reason: `company ${row.companyId} is not in the config`,
      });
      badKeys.add(row.key);
    }
  }
  // A row whose parent became invalid is invalid too (valid[] is parents-first).
  const valid: SeedRow[] = [];
  for (const row of parsed.valid) {
    if (badKeys.has(row.key)) continue;
    if (row.parentKey && badKeys.has(row.parentKey)) {
      problems.push({
        line: row.line,
        key: row.key,
        field: "parent_key",
        reason: `parent row of key "${row.parentKey}" is invalid`,
      });
      badKeys.add(row.key);
      continue;
    }
    valid.push(row);
  }
  problems.sort((a, b) => a.line - b.line);
  return { file: resolve(file), parsed, valid, problems };
}

export interface Submitted extends RecordResult {
  batchId: string;
  /** Keys given a job now (ready rows, and rows left queued by an interrupted run). */
  toEnqueue: string[];
}

/** The seed file's rows in the store's terms, one at a time (a 100,000-row file's payloads are not all held at once). */
export function* newRequests(rows: readonly SeedRow[]): Generator<NewRequest> {
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
  const result = await outbox.record(newRequests(seed.valid), batchId, seed.file, now);
  if (seed.problems.length) await outbox.recordRejections(batchId, seed.file, seed.problems, now);
  return result;
}

export interface SubmitOptions {
  batchId: string;
  /** Told once the rows are recorded and queued, before any wait. */
  onSubmitted?: (submitted: Submitted) => void | Promise<void>;
  /** Wait until the batch settles, running the workers (`startWorker`) and the reconciler meanwhile. */
  /** `reconcileEveryMs`: push.reconcileEveryMs. */
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
  const submitted = { ...recorded, batchId: opts.batchId, toEnqueue: [...queued, ...ready] };
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
