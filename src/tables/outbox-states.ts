/**
 * The push outbox's state machine, written once: the states a scenario_requests row can be in,
 * which operation moves a row from which states to which, and what makes a row ready to be
 * sent. Both adapters (store/sqlite/outbox, store/postgres/outbox) build their WHERE clauses
 * from here, and both schemas take the status column's values from here.
 *
 *   pending --queue (ready)--> queued --create--> created
 *      |  \--block--> blocked --queue (ready)--/      \--exist--> exists --create--> created
 *      |                                   \--fail--> failed --retry--> pending
 *      \--hold--> held --release--> pending; held --probe (ready)--> queued
 *
 * `held`: the row's company's credentials were refused; only that company's rows wait.
 * `blocked`: the row's parent exists but its id is unknown; it waits for set-parent-id.
 *
 * Beside the states, each row says what is known of its attempts (`in_flight`: one was written
 * ahead and has no answer yet; `uncertain`: an earlier one may have created it); how each
 * attempt's end moves those flags is written here too (attemptBegins, attemptEnds, attemptFails),
 * and which rows an attempt may be written ahead for (claimable).
 */
import {
  type AnyColumn,
  and,
  eq,
  inArray,
  isNotNull,
  isNull,
  or,
  type SQL,
  sql,
  type Table,
} from "drizzle-orm";

export const REQUEST_STATUSES = [
  "pending",
  "queued",
  "held",
  "blocked",
  "created",
  "exists",
  "failed",
] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** Settled rows are never sent again. */
export const SETTLED = ["created", "exists", "failed"] as const satisfies readonly RequestStatus[];
export type SettledStatus = (typeof SETTLED)[number];
/** Whether a row in `status` is settled (pure; `statusIn(t, SETTLED)` says the same in SQL). */
export function isSettled(status: RequestStatus): status is SettledStatus {
  return (SETTLED as readonly RequestStatus[]).includes(status);
}
/**
 * Rows a create job sends: not settled, not held (it waits for its company's probe), not
 * blocked (it waits for its parent's id; once the parent gives one, `queue` makes it `queued`
 * and it gets a job). An attempt's write-ahead applies only to a row still in one of these
 * (claimable).
 */
const SENDABLE = ["pending", "queued"] as const satisfies readonly RequestStatus[];
export function isSendable(status: RequestStatus): boolean {
  return (SENDABLE as readonly RequestStatus[]).includes(status);
}
/** Rows not settled yet, waiting for whatever reason. */
export const UNSETTLED = ["pending", "queued", "held", "blocked"] as const satisfies readonly RequestStatus[];
/** Rows that go on by themselves (a wait for a batch waits for these). */
export const OPEN = ["pending", "queued"] as const satisfies readonly RequestStatus[];
/** A parent in one of these states, with its scenario id known, can be named in its children's create. */
export const GIVES_ID = ["created", "exists"] as const satisfies readonly RequestStatus[];

export interface Transition {
  readonly from: readonly RequestStatus[];
  readonly to: RequestStatus;
}

/** Every status change there is: the operation, the states it applies to, the state it makes. */
export const TRANSITIONS = {
  /** Ready rows get a job (takeReady). */
  queue: { from: ["pending", "blocked"], to: "queued" },
  /** The company's credentials were refused: its rows not yet sent wait. */
  hold: { from: ["pending", "queued"], to: "held" },
  /** The company's credentials may work again (resume-push --company, or a probe got through). */
  release: { from: ["held"], to: "pending" },
  /** One ready row of a held company is sent to find out whether its credentials work again. */
  probe: { from: ["held"], to: "queued" },
  /** The parent exists without a known id: wait for it. */
  block: { from: ["pending", "queued"], to: "blocked" },
  /**
   * The service answered with the scenario. The answer is the truth whatever the row says by
   * now (an answer that arrives after its row was held, or failed as outcome unknown, or found
   * to exist): it is recorded, and the id is never lost.
   */
  create: { from: ["pending", "queued", "held", "exists", "failed"], to: "created" },
  /** A name clash after an attempt whose outcome is unknown: it was created, by that attempt. */
  exist: { from: ["pending", "queued", "held"], to: "exists" },
  fail: { from: ["pending", "queued", "held", "blocked"], to: "failed" },
  /** retry-failed. */
  retry: { from: ["failed"], to: "pending" },
} as const satisfies Record<string, Transition>;

export type TransitionName = keyof typeof TRANSITIONS;

/** What each transition clears besides setting its status (its own values come with it: a reason, an id, the time). */
const CLEARS = {
  queue: { errorCode: null, lastError: null },
  hold: {},
  release: { errorCode: null, lastError: null },
  // A probe keeps its reason: its create tells whether the credentials work again.
  probe: {},
  block: {},
  create: { scenarioIdSource: "answer", inFlight: false, errorCode: null, lastError: null },
  exist: { inFlight: false, errorCode: null },
  fail: { inFlight: false },
  retry: { errorCode: null, lastError: null },
} as const satisfies Record<TransitionName, object>;

/** The reason of a row failed because an earlier attempt may have created it (push.uniqueNames false). */
export const OUTCOME_UNKNOWN = "OUTCOME_UNKNOWN";

/**
 * What retry-failed does to `uncertain`: a row failed as OUTCOME_UNKNOWN comes back certain (the
 * person's word that it is not on the service: it is sent again like any row); any other keeps
 * its flag, so that a name clash after a lost answer still says it exists. (1 = 0: false in both
 * dialects.)
 */
export function retryUncertain(t: { errorCode: AnyColumn; uncertain: AnyColumn }): SQL {
  return sql`CASE WHEN ${t.errorCode} = ${OUTCOME_UNKNOWN} THEN (1 = 0) ELSE ${t.uncertain} END`;
}

/**
 * What this run knows of the row's in-flight attempt: `none` (it sent nothing; an in-flight
 * marker is an earlier, crashed attempt's), `sure` (it sent one and the answer says nothing
 * was created), `unknown` (it sent one and the outcome is unknown), `refused` (it sent one and
 * the service would not look at it, a 429: nothing was created, and it is not counted).
 */
export type AttemptKnowledge = "none" | "sure" | "unknown" | "refused";

/** The columns the attempt rules below read and write, whatever the dialect's table. */
export interface AttemptColumns {
  uncertain: AnyColumn;
  inFlight: AnyColumn;
  attempts: AnyColumn;
}

/**
 * An attempt's write-ahead, committed before it is sent: counted, marked in flight, and a mark
 * left by an earlier attempt (it crashed, its outcome unknown) folded into `uncertain`.
 */
export function attemptBegins(t: AttemptColumns) {
  return {
    uncertain: sql`(${t.uncertain} or ${t.inFlight})`,
    inFlight: true,
    attempts: sql`${t.attempts} + 1`,
  };
}

/**
 * The rows an attempt's write-ahead may be written for: the row (placeholder `key`) is still
 * sendable and has the attempts its run read (placeholder `attempts`). Two runs of one job can
 * overlap (a BullMQ lock lost to a stall, or to a Redis that came back empty while a run waited
 * for its rate-limit slot): of two runs that read the row before either wrote ahead, the first to
 * write ahead sends, and the other, finding the count moved, sends nothing. A run that reads the
 * row after another wrote ahead sees that attempt in flight, as it would a crashed one. The count
 * goes back down only when an attempt ends `refused` (a 429, a token endpoint's refusal), an
 * attempt that created nothing and is over.
 */
export function claimable(t: AttemptColumns & Pick<OutboxColumns, "key" | "status">): SQL {
  return and(
    eq(t.key, sql.placeholder("key")),
    statusIn(t, SENDABLE),
    eq(t.attempts, sql.placeholder("attempts")),
  ) as SQL;
}

/**
 * An attempt that ended without settling the row (a retry follows, or the row waits). Only a
 * sure answer to our own attempt clears the in-flight mark; otherwise the next attempt's
 * write-ahead folds it into `uncertain`. A 429 (`refused`) was not looked at: not an attempt,
 * so it is not counted.
 */
export function attemptEnds(
  t: AttemptColumns,
  attempt: AttemptKnowledge,
): { inFlight?: false; attempts?: SQL } {
  return {
    ...(attempt === "sure" || attempt === "refused" ? { inFlight: false as const } : {}),
    ...(attempt === "refused" ? { attempts: sql`${t.attempts} - 1` } : {}),
  };
}

/**
 * What failing a row writes to `uncertain` (besides `fail`'s own clearing of `inFlight`): an
 * attempt that may have reached the server stays known as uncertain, so that after retry-failed
 * a name clash counts as "exists" (a sure failure, like a first-attempt name clash, does not).
 * `none`: a crashed attempt's mark becomes doubt; `unknown`: doubt; `sure`, `refused`: as it was.
 */
export function attemptFails(t: AttemptColumns, attempt: AttemptKnowledge): { uncertain?: SQL | true } {
  if (attempt === "none") return { uncertain: sql`(${t.uncertain} or ${t.inFlight})` };
  return attempt === "unknown" ? { uncertain: true } : {};
}

/** The columns a transition writes, whatever the dialect: spread into the adapter's UPDATE. */
export function writes<Op extends TransitionName>(
  op: Op,
): { status: (typeof TRANSITIONS)[Op]["to"] } & (typeof CLEARS)[Op] {
  return { status: TRANSITIONS[op].to, ...CLEARS[op] };
}

/** Whether `op` applies to a row in `status` (pure; the adapters' conditions say the same in SQL). */
export function canMove(op: TransitionName, status: RequestStatus): boolean {
  return (TRANSITIONS[op].from as readonly RequestStatus[]).includes(status);
}

/** The columns the conditions below read, whatever the dialect's table. */
export interface OutboxColumns {
  key: AnyColumn;
  status: AnyColumn;
  parentKey: AnyColumn;
  scenarioId: AnyColumn;
}

/** The name the conditions give the parent row's alias (`alias(scenarioRequests, PARENT)`). */
export const PARENT = "p";

/** Rows in a state `op` applies to. */
export function movable(t: OutboxColumns, op: TransitionName): SQL {
  return statusIn(t, TRANSITIONS[op].from);
}

export function statusIn(t: Pick<OutboxColumns, "status">, states: readonly RequestStatus[]): SQL {
  return inArray(t.status, [...states]);
}

/** A parent row (the alias `p`) that can give its children its id. */
function givesId(p: OutboxColumns): SQL {
  return and(isNotNull(p.scenarioId), statusIn(p, GIVES_ID)) as SQL;
}

/**
 * What makes a row ready to be sent: it has no parent, or its parent can give it its id. `t`
 * is the rows' table, `p` an alias of it named PARENT (a correlated subquery, so it works in
 * an UPDATE on both dialects).
 */
export function ready(t: Table & OutboxColumns, p: OutboxColumns): SQL {
  return or(
    isNull(t.parentKey),
    sql`exists (select 1 from ${t} ${sql.identifier(PARENT)} where ${p.key} = ${t.parentKey} and ${givesId(p)})`,
  ) as SQL;
}

/**
 * A parent (the joined alias `p`) that can give its unsettled children no id: it failed, is
 * blocked itself, or exists with its id unknown. Such children fail or wait (push/settle.ts).
 */
export function orphaned(p: OutboxColumns): SQL {
  return or(statusIn(p, ["failed", "blocked"]), and(statusIn(p, ["exists"]), isNull(p.scenarioId))) as SQL;
}

/** An `exists` row whose id is unknown: the one state in which an id can be learned (set-parent-id). */
export function idUnknown(t: OutboxColumns): SQL {
  return and(statusIn(t, ["exists"]), isNull(t.scenarioId)) as SQL;
}
