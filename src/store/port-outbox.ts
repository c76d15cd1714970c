/**
 * The push outbox (scenario_requests) and the created scenarios. Status flow:
 * pending -> queued -> created | exists | failed, and blocked (waiting for a parent's id).
 * A row is settled once created, exists or failed; settled rows are never sent again.
 * Which rows move how is push/'s policy; these operations only change what they are told to,
 * and only unsettled rows (a settled row is never changed by a late or duplicate job).
 *
 * Writes issued during one event-loop turn are committed together, in the order issued, and
 * each promise settles once its write is committed (group commit): a worker's jobs finish in
 * bunches, and `markCreated` + `takeReady` of one row issued together see each other.
 */
import type { ScenarioRequestRow, ScenarioRow } from "../schema/index.js";
import type { SeedProblem, SeedRow } from "../seed/index.js";

export type RequestStatus = ScenarioRequestRow["status"];
export type OutboxRow = ScenarioRequestRow;
export type { ScenarioRow };

/**
 * What this run knows of the row's in-flight attempt: `none` (it sent nothing; an in-flight
 * marker is an earlier, crashed attempt's), `sure` (it sent one and the answer says nothing
 * was created), `unknown` (it sent one and the outcome is unknown).
 */
export type AttemptKnowledge = "none" | "sure" | "unknown";

export type ScenarioIdSource = "answer" | "user" | "inline-parent";

export interface RecordResult {
  /** New rows, and unsettled rows taken over by this push. */
  recorded: number;
  /** Rows already settled by an earlier push, by status. */
  skipped: Record<"created" | "exists" | "failed", number>;
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

export type StatusCounts = Record<RequestStatus, number>;

export interface RowFilter {
  batchId?: string | undefined;
  parentKey?: string | undefined;
}

export interface OutboxStore {
  /** Record every valid row of a seed file (one transaction). */
  record(rows: readonly SeedRow[], batchId: string, sourceFile: string, now: string): Promise<RecordResult>;
  recordRejections(
    batchId: string,
    sourceFile: string,
    problems: readonly SeedProblem[],
    now: string,
  ): Promise<void>;
  /** Pending and blocked rows (of the filter) whose parent, if any, has an id: now queued. */
  takeReady(now: string, filter?: RowFilter): Promise<string[]>;
  /** Unsettled rows whose parent failed, is blocked, or exists without a known id. */
  orphans(filter?: RowFilter): Promise<Orphan[]>;
  queuedKeys(filter?: RowFilter): Promise<string[]>;
  sendable(key: string): Promise<SendableRow | undefined>;
  get(key: string): Promise<OutboxRow | undefined>;
  /**
   * Write-ahead of one attempt, committed before it is sent: count it and mark it in flight.
   * Returns whether an earlier attempt's outcome is unknown (a name clash then means exists).
   */
  beginAttempt(key: string, now: string): Promise<boolean>;
  /** The attempt ended without settling the row (a retry follows, or the queue paused). */
  endAttempt(key: string, attempt: AttemptKnowledge, settle: Settle, now: string): Promise<void>;
  /** The service answered with the scenario: record it; also upgrades `exists` (the id is now known). */
  markCreated(key: string, scenario: ScenarioRow, now: string): Promise<boolean>;
  markExists(key: string, message: string, now: string): Promise<boolean>;
  markFailed(key: string, settle: Settle, attempt: AttemptKnowledge, now: string): Promise<boolean>;
  /** Fail several unsettled rows (no attempt of theirs in flight); returns how many. */
  failMany(rows: readonly ({ key: string } & Settle)[], now: string): Promise<number>;
  /** Pending or queued rows wait for their parent's id: blocked, with why. */
  block(keys: readonly string[], settle: Settle, now: string): Promise<number>;
  /** Keys of the unsettled (pending, queued, blocked) children of a row. */
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
  /** Rows of a batch still pending or queued. */
  unsettledCount(batchId: string): Promise<number>;
  failureReasons(batchId?: string): Promise<{ code: string; n: number }[]>;
  /** Rows of a status (failed, blocked) for people, oldest change first. */
  rowsWithStatus(
    status: "failed" | "blocked",
    opts: { code?: string | undefined; limit: number },
  ): Promise<OutboxRow[]>;
}

export function emptyStatusCounts(): StatusCounts {
  return { pending: 0, queued: 0, created: 0, exists: 0, failed: 0, blocked: 0 };
}
