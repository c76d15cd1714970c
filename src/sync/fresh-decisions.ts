/**
 * What each new or changed element of the plan list becomes, decided in list order from what
 * came before it: a plan to write, a rejection, or nothing (another company's plan). The
 * elements read ahead are decided on the main thread once the list is in; past that budget, in
 * the fresh reader's worker thread as they arrive (./fresh-reader.ts). Either way before the
 * snapshot's transaction opens: the transaction only writes what was decided.
 *
 * An element is held against the ones before it only: a known plan's unchanged element met
 * later in the list than a changed copy of it is the snapshot's business once the list is in
 * (./snapshot.ts: the later copy is rejected).
 */
import { normalizePlan } from "../normalize/plan.js";
import type { PlanRead } from "../normalize/read.js";
import type { RawText, SnapshotOp } from "../store/port-snapshot.js";
import type { PlanRowSet } from "../tables/index.js";
import { contentHash } from "./content-hash.js";
import type { RunObserver } from "./observing.js";

/** A new or changed element: where it was in the list, its hash, and what reading it gave. */
export interface Fresh {
  position: number;
  hash: string;
  read: PlanRead;
}

export type Reject = Extract<SnapshotOp, { op: "reject" }>;

type PlanWrite<Text> = { op: "plan.write"; plan: PlanRowSet; rawJson: Text; hash: string };

/** A decided element: a plan to write (insert or update: the snapshot knows which), or a rejection. */
export type Decided = PlanWrite<string> | Reject;

/**
 * A decided element as the snapshot gets it: a plan's text may be its UTF-8 bytes, as read back
 * from the worker's file (./op-spool.ts).
 */
export type DecidedOp = PlanWrite<RawText> | Reject;

/** What the decisions leave for the snapshot, besides the operations. */
export interface DecisionTally {
  /**
   * Ids of the fresh elements: the position of the one kept, or -1 for an id only rejected
   * elements carried (a known plan that fails validation still exists: not deleted).
   */
  seen: Map<number, number>;
  /** Rejected elements without a usable id (any of them may be a plan that seems gone). */
  anonymous: number;
  /** Elements of another company, and the last such company. */
  foreignCount: number;
  foreignCompany: number;
}

export class FreshDecisions implements DecisionTally {
  seen = new Map<number, number>();
  anonymous = 0;
  foreignCount = 0;
  foreignCompany = 0;

  /**
   * `matched(id)`: the position of the known plan's unchanged element, when one arrived (those
   * after the element decided are ignored, whether they arrived yet or not).
   */
  constructor(
    private readonly companyId: number,
    private readonly observer: RunObserver | null,
    private readonly matched: (id: number) => number | undefined,
  ) {}

  /**
   * The position of the first element kept with this id before `position`, if any. A rejected
   * element does not claim its id: a later valid copy is kept (the first valid copy wins).
   */
  #first(id: number, position: number): number | undefined {
    const own = this.seen.get(id);
    if (own !== undefined && own >= 0) return own;
    const m = this.matched(id);
    return m !== undefined && m < position ? m : undefined;
  }

  /** The operation one element becomes, if any. */
  decide(fresh: Fresh): Decided | null {
    const r = fresh.read;
    if (!r.ok) {
      this.observer?.rejected("plan", r.text, r.id);
      return this.#reject(r.id, fresh.position, r.reason, r.text);
    }
    const plan = r.normalized;
    if (plan.plan.companyId !== this.companyId) {
      // Not a bad record: the wrong company's list. Counted once, stored nowhere.
      this.foreignCount++;
      this.foreignCompany = plan.plan.companyId;
      return null;
    }
    const first = this.#first(r.id, fresh.position);
    if (first !== undefined)
      return this.#reject(
        r.id,
        fresh.position,
        twice(r.id, first, fresh.position, "this later copy"),
        r.text,
      );
    this.seen.set(r.id, fresh.position);
    let rows = plan;
    if (this.observer) {
      const verdict = this.observer.take("plan", r.wire, r.id);
      if (!verdict.ok) return this.#reject(r.id, fresh.position, verdict.reason, r.text);
      if (verdict.stripped) rows = normalizePlan(verdict.wire);
    }
    return { op: "plan.write", plan: rows, rawJson: r.text, hash: fresh.hash };
  }

  #reject(id: number | null, position: number, reason: string, text: string): Reject {
    if (id === null) this.anonymous++;
    else if (!this.seen.has(id) && this.#first(id, position) === undefined) this.seen.set(id, -1);
    return rejection(id, reason, text);
  }
}

/** A plan element rejected, with its text (null: none stored). */
export function rejection(id: number | null, reason: string, text: string | null): Reject {
  return { op: "reject", entity: "plan", entityId: id, reason, rawJson: text, hash: contentHash(text ?? "") };
}

export function twice(id: number, kept: number, other: number, rejected: string): string {
  return `plan id ${id} appears twice in the response (elements ${kept + 1} and ${other + 1}); ${rejected} was rejected`;
}
