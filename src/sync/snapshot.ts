/**
 * What one company's snapshot changes, as a generator of store operations: the store drives
 * it inside its transaction, right after loading what it holds (the index). No I/O here but
 * reading the spool; unchanged records are recognised by the hash of their bytes before any
 * parsing, so a re-sync with nothing changed costs little more than reading the list.
 */
import { AccessDeniedError, type ApiError, NotFoundError } from "../api/errors.js";
import { normalizePlan, normalizeReport } from "../normalize/index.js";
import type { RunCounts, RunEnd } from "../store/port-runs.js";
import type { SnapshotIndex, SnapshotOp } from "../store/port-snapshot.js";
import { planSchema, scheduledReportSchema } from "../wire/schemas.js";
import { contentHash, describeIssues, idOf, parseJson } from "./record.js";

export type ReportFetch = { id: number; text: string } | { id: number; error: ApiError };

export interface SnapshotInput {
  companyId: number;
  /** The plan list's records as received, or why it could not be had. */
  plans: { records: Iterable<Buffer> } | { error: ApiError };
  reports: readonly ReportFetch[];
  counts: RunCounts;
  /** Receives one line per problem, for the run's summary. */
  errors: string[];
  /** Set to how many live plans were missing from a list whose deletions were held back. */
  heldBack: { plans: number | null };
}

export function* snapshotOps(
  index: SnapshotIndex,
  input: SnapshotInput,
): Generator<SnapshotOp, Omit<RunEnd, "finishedAt">> {
  const { counts, errors } = input;
  let plansOk = false;
  if ("error" in input.plans) {
    // A failed or partial list writes nothing and deletes nothing.
    const e = input.plans.error;
    errors.push(`plans: ${e.message}`);
    yield planError(e.code, e.status ?? null, e.message);
  } else {
    plansOk = yield* planOps(index, input, input.plans.records);
  }
  const reportErrors = yield* reportOps(index, input, plansOk);
  const plansApplied = !("error" in input.plans);
  const status = statusOf(plansApplied, errors.length, reportErrors, input.reports.length);
  return { status, counts, error: errors.length ? errors.join("; ") : null };
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
 * The plan list, received whole. Returns whether the service is the one we think it is (no
 * plan of another company), which a report's 404 needs before it may delete the report.
 */
function* planOps(
  index: SnapshotIndex,
  input: SnapshotInput,
  records: Iterable<Buffer>,
): Generator<SnapshotOp, boolean> {
  const { companyId, counts, errors } = input;
  const { byHash, byId } = index.plans;
  const seen = new Set<number>();
  /** Unchanged plans: their last_seen_at is set once the list is complete. */
  const unchanged: number[] = [];
  /** Rejected records without an id: we cannot tell which plan they are. */
  let anonymous = 0;
  /** Plans of another company in the list: the token is not the configured company's. */
  let foreignCount = 0;
  let foreignCompany = 0;
  const reject = (id: number | null, reason: string, text: string): SnapshotOp => {
    counts.rejected++;
    // A known plan that now fails validation still exists: do not delete it.
    if (id === null) anonymous++;
    else seen.add(id);
    return { op: "reject", entity: "plan", entityId: id, reason, rawJson: text };
  };
  for (const bytes of records) {
    counts.fetched++;
    const hash = contentHash(bytes);
    const knownId = byHash.get(hash);
    if (knownId !== undefined && !seen.has(knownId)) {
      seen.add(knownId);
      if (byId.get(knownId)?.deleted) {
        yield { op: "plan.revive", id: knownId, rawJson: bytes.toString("utf8"), hash };
        counts.updated++;
      } else {
        unchanged.push(knownId);
        counts.unchanged++;
      }
      continue;
    }
    const text = bytes.toString("utf8");
    const parsed = parseJson(text);
    if (!parsed.ok) {
      yield reject(null, parsed.reason, text);
      continue;
    }
    const result = planSchema.safeParse(parsed.value);
    if (!result.success) {
      yield reject(idOf(parsed.value), describeIssues(result.error), text);
      continue;
    }
    const wire = result.data;
    if (wire.company_id !== companyId) {
      // Not a bad record: the wrong company's list. Counted once, stored nowhere.
      foreignCount++;
      foreignCompany = wire.company_id;
      continue;
    }
    if (seen.has(wire.id)) {
      yield reject(wire.id, `plan id ${wire.id} appears twice in the response`, text);
      continue;
    }
    seen.add(wire.id);
    const op = byId.has(wire.id) ? "plan.update" : "plan.insert";
    yield { op, plan: normalizePlan(wire), rawJson: text, hash };
    if (op === "plan.update") counts.updated++;
    else counts.inserted++;
  }
  const foreign = foreignCount > 0;
  if (foreign) {
    const message = `${foreignCount} plan(s) belong to company ${foreignCompany}, not ${companyId}: the credentials of company ${companyId} are another company's`;
    errors.push(`plans: ${message}`);
    yield planError("COMPANY_MISMATCH", null, message);
  }
  if (anonymous > 0 || foreign) {
    input.heldBack.plans = yield* heldBack(unchanged, anonymous, foreign, byId, seen, errors);
    return !foreign;
  }
  for (const [id, known] of byId) {
    if (known.deleted || seen.has(id)) continue;
    yield { op: "plan.delete", id };
    counts.deleted++;
  }
  // Every plan still live was seen in this list: one statement instead of one per plan.
  yield { op: "plan.touchAllLive" };
  return true;
}

/** Deletions cannot be told apart from records we could not read: delete nothing, and say so. */
function* heldBack(
  unchanged: readonly number[],
  anonymous: number,
  foreign: boolean,
  byId: SnapshotIndex["plans"]["byId"],
  seen: ReadonlySet<number>,
  errors: string[],
): Generator<SnapshotOp, number> {
  for (const id of unchanged) yield { op: "plan.touch", id };
  let missing = 0;
  for (const [id, known] of byId) if (!known.deleted && !seen.has(id)) missing++;
  const why = foreign
    ? "the list holds another company's plans"
    : `${anonymous} rejected record(s) have no usable id, so any of them may be a plan that seems gone`;
  const message = `${missing} plan(s) missing from the list were not marked deleted: ${why}`;
  errors.push(`plans: deletions held back: ${message}`);
  yield planError("DELETIONS_HELD_BACK", null, message);
  return missing;
}

/** Returns how many reports could not be fetched (not counting a 404 that means deleted). */
function* reportOps(
  index: SnapshotIndex,
  input: SnapshotInput,
  plansOk: boolean,
): Generator<SnapshotOp, number> {
  const { counts, errors } = input;
  let failures = 0;
  const reject = (id: number, reason: string, text: string): SnapshotOp => {
    counts.rejected++;
    return { op: "reject", entity: "scheduled_report", entityId: id, reason, rawJson: text };
  };
  for (const f of input.reports) {
    const known = index.reports.get(f.id);
    if ("error" in f) {
      const e = f.error;
      // The report is gone from the service: a 404 that says NOT_FOUND, from a service that
      // answered the plan list in this run (a wrong base URL 404s everything, as HTML).
      if (e instanceof NotFoundError && e.symbolic === "NOT_FOUND" && plansOk) {
        if (known && !known.deleted) {
          yield { op: "report.delete", id: f.id };
          counts.deleted++;
        }
        continue;
      }
      failures++;
      const hint = e instanceof AccessDeniedError ? " (the user lacks permission for this report)" : "";
      errors.push(`report ${f.id}: ${e.message}${hint}`);
      yield {
        op: "error",
        entity: "scheduled_report",
        entityId: f.id,
        code: e.code,
        httpStatus: e.status ?? null,
        message: e.message,
      };
      continue;
    }
    counts.fetched++;
    const parsed = parseJson(f.text);
    if (!parsed.ok) {
      yield reject(f.id, parsed.reason, f.text);
      continue;
    }
    const result = scheduledReportSchema.safeParse(parsed.value);
    if (!result.success) {
      yield reject(idOf(parsed.value) ?? f.id, describeIssues(result.error), f.text);
      continue;
    }
    if (result.data.id !== f.id) {
      yield reject(
        f.id,
        `asked for report ${f.id}, the service answered with report ${result.data.id}`,
        f.text,
      );
      continue;
    }
    const hash = contentHash(f.text);
    if (known && known.hash === hash) {
      if (known.deleted) {
        yield { op: "report.revive", id: f.id, rawJson: f.text, hash };
        counts.updated++;
      } else {
        yield { op: "report.touch", id: f.id };
        counts.unchanged++;
      }
      continue;
    }
    const report = normalizeReport(result.data, input.companyId);
    yield { op: "report.write", report, rawJson: f.text, hash, known: known !== undefined };
    if (known) counts.updated++;
    else counts.inserted++;
  }
  return failures;
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
  if (!plansApplied && (reportCount === 0 || reportFailures === reportCount)) return "failed";
  return "partial";
}
