/** Validate a seed file against the config, then record its rows and queue the ready ones. */
import { resolve } from "node:path";
import type { Config } from "../config/index.js";
import { readSeedFile, type SeedParseResult, type SeedProblem, type SeedRow } from "../seed/index.js";
import type { OutboxStore, RecordResult } from "../store/port-outbox.js";
import { queueReady } from "./settle.js";

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
  /** Keys to add jobs for now (ready rows, and rows left queued by an interrupted run). */
  toEnqueue: string[];
}

/** Record the rows (and the rejected ones) and pick what to queue, in the store only. */
export async function recordSeed(
  outbox: OutboxStore,
  seed: LoadedSeed,
  batchId: string,
  now: string,
): Promise<Submitted> {
  const result = await outbox.record(seed.valid, batchId, seed.file, now);
  if (seed.problems.length) await outbox.recordRejections(batchId, seed.file, seed.problems, now);
  const leftQueued = await outbox.queuedKeys({ batchId });
  const ready = await queueReady(outbox, now, { batchId });
  return { ...result, toEnqueue: [...leftQueued, ...ready] };
}

/**
 * Keys to (re)queue: rows left queued (their job may have died with a process; job ids make
 * a job already there a no-op) and rows that became ready. One rule for the daemon's
 * reconciler and `push --wait`.
 */
export async function keysToRequeue(outbox: OutboxStore, now: string, batchId?: string): Promise<string[]> {
  const filter = batchId === undefined ? {} : { batchId };
  return [...(await outbox.queuedKeys(filter)), ...(await queueReady(outbox, now, filter))];
}
