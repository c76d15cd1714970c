/**
 * The push outbox (scenario_requests) and the created scenarios. The states, which operation
 * moves a row from which states to which, and what makes a row ready are the state machine of
 * schema/outbox-states.ts; both adapters take their conditions from it. Which rows move how is
 * push/'s policy; these operations only change what they are told to, and only rows in a state
 * the operation applies to (a settled row is never changed by a late or duplicate job).
 *
 * Writes issued during one event-loop turn are committed together (group commit), each promise
 * settling once its write is committed. That is a speed-up only: what must happen together is
 * one operation (`settleCreated`), one transaction on its own, whatever the batching does.
 */

import type { ScenarioRequestRow, ScenarioRow } from "../tables/index.js";
import {
  type AttemptKnowledge,
  isSettled,
  REQUEST_STATUSES,
  type RequestStatus,
  SETTLED,
  type SettledStatus,
} from "../tables/outbox-states.js";

export type { AttemptKnowledge, RequestStatus };
export type OutboxRow = ScenarioRequestRow;
export type { ScenarioRow };

/** A row to record, in the store's terms (push/ maps the seed file's rows to it). */
export interface NewRequest {
  key: string;
  companyId: number;
  projectId: number;
  scenarioName: string;
  /** The create request's body as JSON text, sent as it is. */
  payloadJson: string;
  parentKey: string | null;
  /** Where it came from: the line of the recorded source file. */
  line: number;
}

/** A row the seed file could not give, and why (seed_rejections). */
export interface Rejection {
  line: number;
  key: string | null;
  field: string | null;
  reason: string;
}

export type ScenarioIdSource = "answer" | "user" | "inline-parent";

export interface RecordResult {
  /** New rows, and unsettled rows taken over by this push. */
  recorded: number;
  /** Rows already settled by an earlier push, by status. */
  skipped: Record<SettledStatus, number>;
  /** Keys recorded before with a different payload (the recorded one is kept). */
  changedPayload: string[];
}

/** A row's parent, as a child's create needs it. */
export interface ParentInfo {
  key: string;
  status: RequestStatus;
  scenarioId: number | null;
  /** The service's answer to the parent's create, when we have it. */
  scenarioJson: string | null;
  /** The parent's own request body. */
  payloadJson: string;
}

/** What a create job reads of its row. */
export interface SendableRow {
  status: RequestStatus;
  companyId: number;
  projectId: number;
  payloadJson: string;
  parentKey: string | null;
  attempts: number;
  inFlight: boolean;
  uncertain: boolean;
  /**
   * Why the row last waited or failed. A probe of a held company says CREDENTIALS_REFUSED until
   * an answer tells whether the credentials work (push/held.ts).
   */
  errorCode: string | null;
  parent: ParentInfo | null;
}

/** An unsettled row whose parent can give it no id: failed, or exists with its id unknown. */
export interface Orphan {
  key: string;
  status: RequestStatus;
  parentKey: string;
  parentStatus: RequestStatus;
}

export interface Settle {
  code: string;
  message: string;
}

/** The children a created row made ready (now queued), and whether the row itself changed. */
export interface Settled {
  applied: boolean;
  ready: string[];
}

/** Rows held back for one company, and why (the last reason recorded). */
export interface HeldCompany {
  companyId: number;
  rows: number;
  code: string;
  message: string;
}

export type StatusCounts = Record<RequestStatus, number>;

export interface RowFilter {
  batchId?: string | undefined;
  parentKey?: string | undefined;
  companyId?: number | undefined;
}

/**
 * One page of keys: at most `limit`, in the store's order, after the key `after` (the last key
 * of the page before; none for the first page). A short page is the last one.
 */
export interface KeyPage {
  limit: number;
  after?: string | undefined;
}

export interface OutboxStore {
  /** Record the rows of a seed file (one transaction); read once, in order. */
  record(rows: Iterable<NewRequest>, batchId: string, sourceFile: string, now: string): Promise<RecordResult>;
  recordRejections(
    batchId: string,
    sourceFile: string,
    rejections: readonly Rejection[],
    now: string,
  ): Promise<void>;
  /**
   * Pending and blocked rows (of the filter) that are ready: now queued. With `page`, only the
   * first `limit` of them after `after`, in the store's order (call again from the last key
   * returned: a batch at a time, each its own transaction).
   */
  takeReady(now: string, filter?: RowFilter, page?: KeyPage): Promise<string[]>;
  /** Unsettled rows whose parent failed, is blocked, or exists without a known id. */
  orphans(filter?: RowFilter): Promise<Orphan[]>;
  /** Queued rows (of the filter); with `page`, one page of them, in the same order as takeReady's. */
  queuedKeys(filter?: RowFilter, page?: KeyPage): Promise<string[]>;
  sendable(key: string): Promise<SendableRow | undefined>;
  get(key: string): Promise<OutboxRow | undefined>;
  /**
   * Write-ahead of one attempt, committed before it is sent: count it and mark it in flight,
   * only if the row is still sendable with the attempts its job read (`seen`). Returns whether
   * an earlier attempt's outcome is unknown (a name clash then means exists), or undefined when
   * the row moved since it was read (another run of the job wrote ahead first, or the row was
   * settled or held): this run must not send.
   */
  beginAttempt(key: string, seen: Pick<SendableRow, "attempts">, now: string): Promise<boolean | undefined>;
  /** The attempt ended without settling the row (a retry follows, or the row waits). */
  endAttempt(key: string, attempt: AttemptKnowledge, settle: Settle, now: string): Promise<void>;
  /**
   * The service answered with the scenario: record it, mark the row created (also from `exists`,
   * whose id is now known), and queue the children that this makes ready. One transaction,
   * whatever else the group commit puts beside it.
   */
  settleCreated(key: string, scenario: ScenarioRow, now: string): Promise<Settled>;
  markExists(key: string, message: string, now: string): Promise<boolean>;
  markFailed(key: string, settle: Settle, attempt: AttemptKnowledge, now: string): Promise<boolean>;
  /** Fail several unsettled rows for one reason (no attempt of theirs in flight); returns how many. */
  failMany(keys: readonly string[], settle: Settle, now: string): Promise<number>;
  /** Pending or queued rows wait for their parent's id: blocked, with why. */
  block(keys: readonly string[], settle: Settle, now: string): Promise<number>;
  /** The company's credentials were refused: its pending and queued rows are held, with why. */
  hold(companyId: number, settle: Settle, now: string): Promise<number>;
  /** Held rows (of one company, or all) back to pending; returns how many. */
  release(companyId: number | undefined, now: string): Promise<number>;
  /**
   * For each company with held rows, one of them that is ready goes to queued, its reason kept
   * (its create tells whether the credentials work again). Returns the keys.
   */
  probeHeld(now: string): Promise<string[]>;
  /** Held rows by company, with the reason. */
  heldCompanies(): Promise<HeldCompany[]>;
  /** Keys of the unsettled children of a row. */
  unsettledChildren(parentKey: string): Promise<string[]>;
  /** An `exists` row without an id learns it; false when it has one already or is not `exists`. */
  learnId(key: string, scenarioId: number, source: ScenarioIdSource, now: string): Promise<boolean>;
  /** Ids that other rows give, as their inline parent object, to a scenario of this project and name. */
  inlineParentIds(projectId: number, scenarioName: string): Promise<number[]>;
  /** Failed rows back to pending; returns their keys. */
  resetFailed(
    filter: { code?: string | undefined; key?: string | undefined },
    now: string,
  ): Promise<string[]>;
  counts(batchId?: string): Promise<StatusCounts>;
  /** Rows of a batch still pending or queued (held and blocked rows wait for something else). */
  unsettledCount(batchId: string): Promise<number>;
  failureReasons(batchId?: string): Promise<{ code: string; n: number }[]>;
  /** Rows of a status (failed, blocked, held) for people, oldest change first. */
  rowsWithStatus(
    status: "failed" | "blocked" | "held",
    opts: { code?: string | undefined; limit: number },
  ): Promise<OutboxRow[]>;
}

export function emptyStatusCounts(): StatusCounts {
  return Object.fromEntries(REQUEST_STATUSES.map((s) => [s, 0])) as StatusCounts;
}

export function emptyRecordResult(): RecordResult {
  return {
    recorded: 0,
    skipped: Object.fromEntries(SETTLED.map((s) => [s, 0])) as RecordResult["skipped"],
    changedPayload: [],
  };
}

/**
 * A row of the seed file whose key was recorded before, tallied: a changed payload is noted (the
 * recorded one is kept), a settled row is skipped, an unsettled one is taken over by this push.
 * Returns whether it is taken over (the adapter then moves it into the batch).
 */
export function tallyRecordedBefore(
  result: RecordResult,
  row: { key: string; payloadJson: string },
  before: { status: RequestStatus; payloadJson: string },
): boolean {
  if (before.payloadJson !== row.payloadJson) result.changedPayload.push(row.key);
  if (isSettled(before.status)) {
    result.skipped[before.status]++;
    return false;
  }
  result.recorded++;
  return true;
}
