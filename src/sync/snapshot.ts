/**
 * What one company's snapshot changes, as a generator of store operations decided against the
 * index read before the download and the stored texts read after it (never asking the store
 * anything back). The store runs it inside its transaction: the plan list's elements were read
 * and decided before it opened (./plan-list.ts), so what is left is writing them.
 */
import type { ApiError } from "../api/errors.js";
import { truncate } from "../normalize/text.js";
import type { RunCounts, RunEnd } from "../store/port-runs.js";
import type { SnapshotEnd, SnapshotIndex, SnapshotOp, SnapshotOps } from "../store/port-snapshot.js";
import { rejection, twice } from "./fresh-decisions.js";
import { type RunObserver, storedKey } from "./observing.js";
import type { PlanListReceiver } from "./plan-list.js";
import { type ReportFetch, reportOps } from "./report-ops.js";
import type { StoredTexts } from "./stored-texts.js";

export type { ReportFetch };

/** The plan list: received whole, received up to a failure, or not at all. */
export type PlanList =
  | { list: PlanListReceiver; cutOff: null }
  /** Broke off for good after `list.count` elements; `tail` is the element it broke off in. */
  | { list: PlanListReceiver; cutOff: { error: ApiError; tail: Buffer | null } }
  | { error: ApiError };

export interface SnapshotInput {
  companyId: number;
  /** The run's id and start: they stamp its observations. */
  runId: number;
  startedAt: string;
  /** Observes the service's schema as the records go (null: schema.observe is off). */
  observer: RunObserver | null;
  /** The stored texts of the contents this snapshot may replace (see `replaceable`), for the observer. */
  stored: StoredTexts | null;
  plans: PlanList;
  reports: readonly ReportFetch[];
  counts: RunCounts;
  /** Receives one line per problem, for the run's summary. */
  errors: string[];
  /** Set to how many live plans were missing from a list whose deletions were held back. */
  heldBack: { plans: number | null };
}

/** Longest tail of a cut-off list kept in rejected_records. */
const MAX_TAIL_CHARS = 64 * 1024;

/**
 * The live records whose stored content a snapshot may replace or delete, known once the list
 * is in: every live plan not received unchanged, every live report. Their texts are read before
 * the transaction (the observer takes back what the replaced ones had added).
 */
export function replaceable(index: SnapshotIndex, plans: PlanList): { plans: number[]; reports: number[] } {
  const matched = "list" in plans ? plans.list.matched : new Map<number, number>();
  const out = { plans: [] as number[], reports: [] as number[] };
  if ("error" in plans) return out;
  for (const id of index.plans.known.live()) if (!matched.has(id)) out.plans.push(id);
  for (const [id, known] of index.reports) if (!known.deleted) out.reports.push(id);
  return out;
}

export function* snapshotOps(index: SnapshotIndex, input: SnapshotInput): SnapshotOps {
  const { errors, observer } = input;
  /** The live contents this snapshot replaces or deletes (storedKey). */
  const replaced = new Set<string>();
  const note = (o: SnapshotOp) => {
    if (o.op === "plan.update" && index.plans.known.isDeleted(o.plan.plan.id as number) === false)
      replaced.add(storedKey("plan", o.plan.plan.id as number));
    else if (o.op === "plan.delete") replaced.add(storedKey("plan", o.id));
    else if (o.op === "report.write" && index.reports.get(o.report.report.id as number)?.deleted === false)
      replaced.add(storedKey("scheduled_report", o.report.report.id as number));
    else if (o.op === "report.delete") replaced.add(storedKey("scheduled_report", o.id));
  };
  let plans = { ok: false, listed: false, seen: false };
  if ("error" in input.plans) {
    // A failed list writes nothing and deletes nothing.
    const e = input.plans.error;
    errors.push(`plans: ${e.message}`);
    yield planError(e.code, e.status ?? null, e.message);
  } else {
    plans = yield* noting(planOps(index, input, input.plans), note);
  }
  const reportErrors = yield* noting(reportOps(index, input, plans.ok), note);
  if (observer) {
    observer.uncountReplaced(input.stored, replaced);
    const write = observer.finish(input.runId, input.startedAt, plans.listed);
    if (write) yield write;
  }
  const status = statusOf(!("error" in input.plans), errors.length, reportErrors, input.reports.length);
  const run: Omit<RunEnd, "finishedAt"> = {
    status,
    counts: input.counts,
    error: errors.length ? errors.join("; ") : null,
  };
  return {
    run,
    plansListed: plans.listed,
    plansSeen: plans.seen,
    rejections: status !== "failed",
  } satisfies SnapshotEnd;
}

/** Yields what `ops` yields, showing each operation to `note` first; returns what it returns. */
function* noting<R>(ops: Generator<SnapshotOp, R>, note: (o: SnapshotOp) => void): Generator<SnapshotOp, R> {
  for (let step = ops.next(); ; step = ops.next()) {
    if (step.done) return step.value;
    note(step.value);
    yield step.value;
  }
}

const planError = (code: string, httpStatus: number | null, message: string): SnapshotOp => ({
  op: "error",
  entity: "plans",
  entityId: null,
  code,
  httpStatus,
  message,
});

/**
 * The plan list. `ok`: the service is the one we think it is (no plan of another company),
 * which a report's 404 needs before it may delete the report. `listed`: the list was complete
 * and deletions were applied.
 */
function* planOps(
  index: SnapshotIndex,
  input: SnapshotInput,
  received: Exclude<PlanList, { error: ApiError }>,
): Generator<SnapshotOp, { ok: boolean; listed: boolean; seen: boolean }> {
  const { companyId, counts, errors } = input;
  const { list } = received;
  const { known: knownPlans } = index.plans;
  counts.fetched += list.count;
  // Read and decided off this path (./plan-list.ts): only written here.
  const decided = list.decided();
  let step = decided.next();
  for (; !step.done; step = decided.next()) {
    const d = step.value;
    if (d.op === "reject") {
      counts.rejected++;
      yield d;
      continue;
    }
    const known = knownPlans.has(d.plan.plan.id as number);
    yield { op: known ? "plan.update" : "plan.insert", plan: d.plan, rawJson: d.rawJson, hash: d.hash };
    if (known) counts.updated++;
    else counts.inserted++;
  }
  const tally = step.value;
  /** Every id met, at the position of its first element (-1: in rejected elements only). */
  const seen = new Map(list.matched);
  /** Known plans whose unchanged element came after a changed copy of the id: rejected. */
  const overridden = new Set<number>();
  for (const [id, position] of tally.seen) {
    const later = list.matched.get(id);
    if (position >= 0 && later !== undefined && later > position) {
      overridden.add(id);
      counts.rejected++;
      yield rejection(id, twice(id, position, later, "the later copy (as stored)"), null);
    }
    if (position >= 0 || !seen.has(id)) seen.set(id, position);
  }
  let anonymous = tally.anonymous;
  const { foreignCount, foreignCompany } = tally;
  for (const id of list.matched.keys()) {
    if (overridden.has(id)) continue;
    const revived = list.revivals.get(id);
    if (revived) {
      input.observer?.revived("plan", revived, id);
      yield { op: "plan.revive", id, hash: (knownPlans.get(id) as { hash: string }).hash };
      counts.updated++;
    } else counts.unchanged++;
  }
  const foreign = foreignCount > 0;
  if (foreign) {
    const message = `${foreignCount} plan(s) belong to company ${foreignCompany}, not ${companyId}: the credentials of company ${companyId} are another company's`;
    errors.push(`plans: ${message}`);
    yield planError("COMPANY_MISMATCH", null, message);
  }
  const { cutOff } = received;
  if (cutOff) {
    const e = cutOff.error;
    const message = `the plan list broke off after ${list.count} plan(s): ${e.message}`;
    errors.push(`plans: ${message}`);
    yield planError(e.code, e.status ?? null, message);
    if (cutOff.tail?.length) {
      // Only its start is kept: decoded from as many bytes as could make MAX_TAIL_CHARS units.
      const kept = truncate(cutOff.tail.subarray(0, 4 * MAX_TAIL_CHARS).toString("utf8"), MAX_TAIL_CHARS);
      anonymous++;
      counts.rejected++;
      yield rejection(
        null,
        `the plan list broke off inside this element (${cutOff.tail.length} bytes received)`,
        kept,
      );
    }
  }
  if (anonymous > 0 || foreign || cutOff) {
    const why = foreign
      ? "the list holds another company's plans"
      : cutOff
        ? "the list is incomplete"
        : `${anonymous} rejected record(s) have no usable id, so any of them may be a plan that seems gone`;
    yield* listedAgain(index, seen);
    input.heldBack.plans = yield* heldBack(index, seen, why, errors);
    return { ok: !foreign, listed: false, seen: true };
  }
  yield* listedAgain(index, seen);
  for (const id of knownPlans.live()) {
    if (seen.has(id)) continue;
    yield { op: "plan.delete", id };
    counts.deleted++;
  }
  return { ok: true, listed: true, seen: true };
}

/**
 * The unlisted plans that this list holds again, and those that are no longer the company's live
 * plans (taken over, deleted): no longer unlisted. (A complete list's deletions end the rest.)
 */
function* listedAgain(index: SnapshotIndex, seen: ReadonlyMap<number, number>): Generator<SnapshotOp> {
  for (const id of index.plans.unlisted) {
    if (seen.has(id) || index.plans.known.isDeleted(id) !== false) yield { op: "plan.listed", id };
  }
}

/**
 * Deletions cannot be told apart from plans we could not read: delete nothing, and say so. The
 * list vouches for the plans it holds (sync_state.plans_seen_at, one write for all of them); a
 * live plan missing from it keeps its last sighting (unlisted_plans), written once when it goes
 * missing, so that a list that keeps an unreadable element writes no plan row run after run.
 */
function* heldBack(
  index: SnapshotIndex,
  seen: ReadonlyMap<number, number>,
  why: string,
  errors: string[],
): Generator<SnapshotOp, number> {
  const { known, unlisted } = index.plans;
  let missing = 0;
  for (const id of known.live()) {
    if (seen.has(id)) continue;
    missing++;
    if (!unlisted.has(id)) yield { op: "plan.unlisted", id };
  }
  const message = `${missing} plan(s) missing from the list were not marked deleted: ${why}`;
  errors.push(`plans: deletions held back: ${message}`);
  yield planError("DELETIONS_HELD_BACK", null, message);
  return missing;
}

/**
 * succeeded: everything came in and was applied. failed: nothing could be had (no plan list,
 * and no report either). partial: the rest (a report refused, deletions held back, ...).
 */
function statusOf(
  plansApplied: boolean,
  problems: number,
  reportFailures: number,
  reportCount: number,
): RunEnd["status"] {
  if (problems === 0) return "succeeded";
  if (!plansApplied && (reportFailures === reportCount || reportCount === 0)) return "failed";
  return "partial";
}
