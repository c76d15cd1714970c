/**
 * The plans half of a company's sync: apply the plan list (from the spool) inside the open
 * transaction. Unchanged records are recognised by the hash of their text before any
 * parsing, so a re-sync with nothing changed costs little more than reading the list.
 */

import { normalizePlan } from "../normalize/index.js";
import type { Sqlite } from "../store/db.js";
import { loadPlanIndex, type PlanIndex, PlanWriter } from "../store/plans.js";
import { type RunCounts, recordRejected } from "../store/runs.js";
import { planSchema } from "../wire/schemas.js";
import { contentHash, describeIssues, idOf, parseJson } from "./record.js";

export interface PlanPhaseContext {
  sqlite: Sqlite;
  companyId: number;
  runId: number;
  now: string;
  counts: RunCounts;
}

/** Plans of another company in the list: the token is not the configured company's. */
export interface CompanyMismatch {
  count: number;
  companyId: number;
}

export class PlanPhase {
  readonly #writer: PlanWriter;
  readonly #index: PlanIndex;
  readonly #seen = new Set<number>();
  /** Unchanged plans seen: their last_seen_at is set once the list is complete. */
  #unchanged: number[] = [];
  /** Rejected records without an id: we cannot tell which plan they are, so nothing is deleted. */
  #anonymousRejects = 0;
  #mismatch: CompanyMismatch | null = null;

  constructor(private readonly ctx: PlanPhaseContext) {
    this.#writer = new PlanWriter(ctx.sqlite);
    this.#index = loadPlanIndex(ctx.sqlite, ctx.companyId);
  }

  get mismatch(): CompanyMismatch | null {
    return this.#mismatch;
  }

  /** One record's JSON, its bytes as received (decoded only if it is new or changed). */
  record(bytes: Buffer): void {
    const { now, runId, counts } = this.ctx;
    counts.fetched++;
    const hash = contentHash(bytes);
    const knownId = this.#index.byHash.get(hash);
    if (knownId !== undefined && !this.#seen.has(knownId)) {
      this.#seen.add(knownId);
      if (this.#index.byId.get(knownId)?.deleted) {
        this.#writer.revive(knownId, bytes.toString("utf8"), hash, now, runId);
        counts.updated++;
      } else {
        this.#unchanged.push(knownId);
        counts.unchanged++;
      }
      return;
    }
    const text = bytes.toString("utf8");
    const parsed = parseJson(text);
    if (!parsed.ok) {
      this.#reject(null, parsed.reason, text);
      return;
    }
    const result = planSchema.safeParse(parsed.value);
    if (!result.success) {
      this.#reject(idOf(parsed.value), describeIssues(result.error), text);
      return;
    }
    const wire = result.data;
    if (wire.company_id !== this.ctx.companyId) {
      // Not a bad record: the wrong company's list. Counted once, stored nowhere.
      this.#mismatch = { count: (this.#mismatch?.count ?? 0) + 1, companyId: wire.company_id };
      return;
    }
    if (this.#seen.has(wire.id)) {
      this.#reject(wire.id, `plan id ${wire.id} appears twice in the response`, text);
      return;
    }
    this.#seen.add(wire.id);
    const normalized = normalizePlan(wire);
    if (this.#index.byId.has(wire.id) || this.#writer.exists(wire.id)) {
      this.#writer.update(normalized, text, hash, now, runId);
      counts.updated++;
    } else {
      this.#writer.insert(normalized, text, hash, now, runId);
      counts.inserted++;
    }
  }

  /**
   * The list was received whole. Live plans that were not in it get deleted_at, unless some
   * rejected record had no id or some plan was another company's: then nothing is deleted
   * and false is returned.
   */
  complete(): boolean {
    const { now, companyId } = this.ctx;
    if (this.#anonymousRejects > 0 || this.#mismatch) {
      for (const id of this.#unchanged) this.#writer.touch(id, now);
      return false;
    }
    for (const [id, known] of this.#index.byId) {
      if (known.deleted || this.#seen.has(id)) continue;
      this.#writer.markDeleted(id, now);
      this.ctx.counts.deleted++;
    }
    // Every plan still live was seen in this list: one statement instead of one per plan.
    this.#writer.touchAllLive(companyId, now);
    return true;
  }

  #reject(id: number | null, reason: string, text: string): void {
    this.ctx.counts.rejected++;
    // A known plan that now fails validation still exists: do not delete it.
    if (id === null) this.#anonymousRejects++;
    else this.#seen.add(id);
    recordRejected(this.ctx.sqlite, this.ctx.runId, "plan", id, reason, text);
  }
}
