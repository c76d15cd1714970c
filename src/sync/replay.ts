/**
 * A company's replay: its stored records made into rows again from their stored JSON text,
 * without calling the service (after an upgrade that adds columns, after a contract change),
 * and the records its newest snapshot rejected admitted when they read now. Every record is read
 * and decided before the transaction, which only writes what was decided. One transaction,
 * under the company's lease, recorded as a run (trigger `replay`). Idempotent: a stored record
 * keeps its version and its sightings; only an admitted record (new content) opens a version.
 */
import { normalizePlan } from "../normalize/plan.js";
import { readPlan, readReport } from "../normalize/read.js";
import { emptyCounts, type RunCounts, type RunEnd } from "../store/port-runs.js";
import type {
  SnapshotEnd,
  SnapshotIndex,
  SnapshotOp,
  SnapshotOps,
  StoredRecord,
} from "../store/port-snapshot.js";
import type { PlanRowSet, ReportRowSet } from "../tables/index.js";
import type { SyncDeps } from "./company.js";
import { applySnapshot, companyRun } from "./company-run.js";
import { contentHash } from "./content-hash.js";
import { type RunObserver, storedKey } from "./observing.js";
import type { CompanySyncResult } from "./run.js";
import { DEFAULT_SCHEMA, observerFor } from "./schema-settings.js";
import { type SpooledOps, spoolOps } from "./spooled-ops.js";
import { StoredTexts } from "./stored-texts.js";

/** What a replay needs: a sync's deps but the service (it calls none). */
export type ReplayDeps = Omit<SyncDeps, "client" | "signal" | "onProgress" | "readAheadBytes">;

export async function replayCompany(deps: ReplayDeps, companyId: number): Promise<CompanySyncResult> {
  const { store } = deps;
  return companyRun(deps, companyId, "replay", async (run) => {
    const schema = deps.schema ?? DEFAULT_SCHEMA;
    const index = await store.snapshots.index(companyId, []);
    const observer = schema.observe ? await observerFor(store, companyId, schema) : null;
    // Everything the replay reads, read before its transaction (the live texts wait in a spool).
    await observer?.countStored(store.snapshots);
    const live = await StoredTexts.read(store.snapshots, companyId, "live");
    const state = { counts: emptyCounts(), errors: [] as string[] };
    let ops: SpooledOps<SnapshotEnd>;
    try {
      const rejected: StoredRecord[] = [];
      await store.snapshots.stored(companyId, "rejected", (r) => rejected.push(r));
      const startedAt = run.ctx.started.toISOString();
      const input = { companyId, runId: run.runId, startedAt, observer, live, rejected, ...state };
      // Every record read (parsed, checked, normalized) and decided before the transaction:
      // the operations wait in a file, and the transaction only writes them.
      ops = spoolOps(replayOps(index, input));
    } finally {
      live.dispose();
    }
    try {
      const ending = await applySnapshot(deps, run, index.generation, ops.read(), {
        observer,
        errors: state.errors,
        heldBack: () => null,
      });
      return ending ?? { kind: "stale", attempts: 1 };
    } finally {
      ops.dispose();
    }
  });
}

interface ReplayInput {
  companyId: number;
  runId: number;
  startedAt: string;
  observer: RunObserver | null;
  /** The company's live records' texts, and the records its newest sync rejected. */
  live: StoredTexts;
  rejected: readonly StoredRecord[];
  counts: RunCounts;
  errors: string[];
}

/**
 * The stored records, read again: their rows rewritten (`unchanged` counts them); the records
 * the newest snapshot rejected and that read now: admitted (`inserted` or `updated`); those
 * that still do not: `rejected` (their reasons stay with the snapshot that met them).
 */
function* replayOps(index: SnapshotIndex, input: ReplayInput): SnapshotOps {
  const { counts, errors, observer } = input;
  for (const r of input.live.records()) {
    const op = rewrite(input, r);
    if (op) yield op;
  }
  const tried = new Set<string>();
  /** The live contents an admitted record replaces (the observer takes them back). */
  const replaced = new Set<string>();
  for (const r of input.rejected) {
    const key = storedKey(r.entity, r.id);
    if (tried.has(key)) continue;
    tried.add(key);
    const op = admit(index, input, r);
    if (!op) {
      counts.rejected++;
      continue;
    }
    replaced.add(key);
    yield op;
  }
  if (observer) {
    observer.uncountReplaced(input.live, replaced);
    const write = observer.finish(input.runId, input.startedAt, false);
    if (write) yield write;
  }
  const end: Omit<RunEnd, "finishedAt"> = {
    status: errors.length ? "partial" : "succeeded",
    counts,
    error: errors.length ? errors.join("; ") : null,
  };
  return { run: end, plansListed: false, plansSeen: false, rejections: false };
}

/** A stored record's rows, made again (counted `unchanged`); null when its text no longer reads. */
function rewrite(input: ReplayInput, r: StoredRecord): SnapshotOp | null {
  const { counts, errors, companyId, observer } = input;
  const what = r.entity === "plan" ? "plan" : "report";
  const read = r.entity === "plan" ? readPlan(r.rawJson) : readReport(r.rawJson, companyId);
  if (!read.ok) {
    errors.push(
      `${what} ${r.id}: its stored text no longer reads (${read.reason}); its rows were left as they are`,
    );
    return null;
  }
  counts.unchanged++;
  if (r.entity !== "plan") return { op: "report.renormalize", report: read.normalized as ReportRowSet };
  const plan = observer?.strip(read.wire as Record<string, unknown>) ?? (read.normalized as PlanRowSet);
  return { op: "plan.renormalize", plan };
}

/** A rejected record that reads now (and passes the contract): its write; else null. */
function admit(index: SnapshotIndex, input: ReplayInput, r: StoredRecord): SnapshotOp | null {
  const { counts, companyId, observer } = input;
  const hash = contentHash(r.rawJson);
  if (r.entity === "plan") {
    const read = readPlan(r.rawJson);
    if (!read.ok || read.normalized.plan.companyId !== companyId) return null;
    const verdict = observer?.take("plan", read.wire, read.id);
    if (verdict && !verdict.ok) return null;
    const known = index.plans.known.get(read.id);
    if (known?.hash === hash) return null;
    const plan = verdict?.ok && verdict.stripped ? normalizePlan(verdict.wire) : read.normalized;
    if (known) counts.updated++;
    else counts.inserted++;
    return { op: known ? "plan.update" : "plan.insert", plan, rawJson: read.text, hash };
  }
  const read = readReport(r.rawJson, companyId);
  if (!read.ok || read.id !== r.id) return null;
  const verdict = observer?.take("scheduled_report", read.wire, read.id);
  if (verdict && !verdict.ok) return null;
  counts.updated++;
  return { op: "report.write", report: read.normalized, rawJson: read.text, hash, known: true };
}
