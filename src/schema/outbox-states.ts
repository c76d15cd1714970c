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
 */
import { type AnyColumn, and, inArray, isNotNull, isNull, or, type SQL, sql, type Table } from "drizzle-orm";

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
