/**
 * One company's pull: fetch -> apply -> finish. The one pipeline: the one-shot `tas-sync sync`
 * and the BullMQ job both call `syncCompany`.
 *
 * Fetch: the company's index (what the database holds), then the reports and the plan list,
 * each plan held against the index as it arrives, with no transaction open; then the stored
 * texts the snapshot may replace (for the observer). Apply: the store writes the snapshot's
 * operations in one transaction (./snapshot.ts decides them) and answers none of them. Around it:
 * a lease (one sync of a company at a time, anywhere) with a heartbeat, and the run's record.
 */
import type { TasClient } from "../api/client.js";
import type { Logger } from "../log.js";
import type { Store } from "../store/port.js";
import { emptyCounts, type Owner } from "../store/port-runs.js";
import type { Telemetry } from "../telemetry.js";
import { applySnapshot, companyRun, type RunHandle } from "./company-run.js";
import { fetchSnapshot } from "./fetch.js";
import type { CompanySyncResult, RunEnding } from "./run.js";
import { DEFAULT_SCHEMA, observerFor, type SchemaSettings } from "./schema-settings.js";
import { replaceable, snapshotOps } from "./snapshot.js";
import { StoredTexts } from "./stored-texts.js";

export type { CompanySyncResult } from "./run.js";
export type { SchemaSettings } from "./schema-settings.js";

export interface SyncProgress {
  companyId: number;
  phase: "reports" | "plans" | "applying";
  records: number;
  bytes: number;
}

export interface SyncDeps {
  store: Store;
  client: TasClient;
  logger: Logger;
  now?: () => Date;
  telemetry?: Telemetry;
  owner?: Owner;
  /** Abandons the run: nothing is written, it ends `cancelled`. */
  signal?: AbortSignal;
  onProgress?: (p: SyncProgress) => void;
  leaseMs?: number;
  /** Bytes of new or changed plans read during the download (the rest while applying). */
  readAheadBytes?: number;
  /** How to observe the service's schema (the config's schema.*); default: observe, evolve. */
  schema?: SchemaSettings;
}

export interface CompanySyncInput {
  companyId: number;
  reportIds: readonly number[];
  trigger: string;
}

/** Fetch-and-apply rounds when another process keeps changing the company's data meanwhile. */
const MAX_ATTEMPTS = 3;

class Cancelled extends Error {
  constructor(readonly why: string) {
    super(why);
  }
}

export async function syncCompany(deps: SyncDeps, input: CompanySyncInput): Promise<CompanySyncResult> {
  const stop = new AbortController();
  const onStop = () => stop.abort(new Cancelled("the process is stopping"));
  deps.signal?.addEventListener("abort", onStop, { once: true });
  if (deps.signal?.aborted) onStop();
  try {
    return await companyRun(deps, input.companyId, input.trigger, async (run) => {
      run.ctx.log.info({ runId: run.runId, reports: input.reportIds.length }, "sync started");
      try {
        return await fetchAndApply(deps, input, run, stop.signal);
      } catch (err) {
        if (err instanceof Cancelled) return { kind: "cancelled", why: err.why };
        throw err;
      }
    });
  } finally {
    deps.signal?.removeEventListener("abort", onStop);
  }
}

/** Fetch, then apply; again when the company's data changed in between (rare: another writer). */
async function fetchAndApply(
  deps: SyncDeps,
  input: CompanySyncInput,
  run: RunHandle,
  signal: AbortSignal,
): Promise<RunEnding> {
  const { store, client } = deps;
  const { companyId } = input;
  const { runId, ctx } = run;
  const log = ctx.log.child({ runId });
  const progress = (phase: SyncProgress["phase"], records: number, bytes: number) =>
    deps.onProgress?.({ companyId, phase, records, bytes });
  const schema = deps.schema ?? DEFAULT_SCHEMA;
  for (let attempt = 1; ; attempt++) {
    const index = await store.snapshots.index(companyId, input.reportIds);
    const observer = schema.observe ? await observerFor(store, companyId, schema) : null;
    await observer?.countStored(store.snapshots);
    const fetched = await fetchSnapshot(client, companyId, input.reportIds, index, {
      signal,
      observer,
      onProgress: progress,
      log,
      ...(deps.readAheadBytes === undefined ? {} : { readAheadBytes: deps.readAheadBytes }),
    });
    let stored: StoredTexts | null = null;
    try {
      // The new or changed plans: read now, or by the worker thread as the snapshot is written.
      const received = "list" in fetched.plans ? fetched.plans.list : null;
      received?.read();
      await received?.settle();
      // Everything the snapshot needs of the database, read before its transaction.
      if (observer)
        stored = await StoredTexts.read(store.snapshots, companyId, replaceable(index, fetched.plans));
      signal.throwIfAborted();
      progress("applying", received?.count ?? 0, received?.bytes ?? 0);
      const state = {
        companyId,
        counts: emptyCounts(),
        errors: [] as string[],
        heldBack: { plans: null as number | null },
      };
      const ops = snapshotOps(index, {
        ...state,
        runId,
        startedAt: ctx.started.toISOString(),
        observer,
        stored,
        plans: fetched.plans,
        reports: fetched.reports,
      });
      const ending = await applySnapshot(
        deps,
        run,
        index.generation,
        ops,
        {
          observer,
          errors: state.errors,
          heldBack: () => state.heldBack.plans,
          readerWaitMs: () => received?.readerWaitMs ?? null,
        },
        signal,
      );
      if (ending) return ending;
      if (attempt >= MAX_ATTEMPTS) return { kind: "stale", attempts: attempt };
      log.warn({ attempt }, "the company's data changed during the sync; fetching again");
    } finally {
      stored?.dispose();
      fetched.dispose();
    }
  }
}
