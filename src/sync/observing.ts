/**
 * A run's observation of the service (src/observed/), as the snapshot's operations see it: the
 * records it stores count +1, the contents it replaces or deletes -1 (their texts read before
 * the transaction: ./stored-texts.ts), and the contract decides on each new or changed record
 * first. Its last operation writes the paths it touched and the changes it found.
 */
import { normalizePlan } from "../normalize/plan.js";
import { parseJson } from "../normalize/record.js";
import { AcceptedSchema, type ContractMode } from "../observed/contract.js";
import { Observation, type PathNode } from "../observed/observation.js";
import {
  type ObservationState,
  observationFromState,
  observationState,
} from "../observed/observation-state.js";
import type { RecordKind } from "../observed/paths.js";
import type { NewSchemaChange, ObservedPath, SchemaChange } from "../observed/port.js";
import { JSON_TYPES } from "../observed/port.js";
import { settle } from "../observed/settle.js";
import type { SnapshotOp, SnapshotStore, StoredRecord } from "../store/port-snapshot.js";
import type { PlanRowSet } from "../tables/index.js";
import type { WirePlan } from "../wire/schemas.js";
import type { StoredTexts } from "./stored-texts.js";

/** How a sync observes: from the config (schema.*), and what the store knows of the company. */
export interface ObserveSettings {
  valueCap: number;
  contract: Record<RecordKind, ContractMode>;
  known: readonly ObservedPath[];
  /** The company's changes that brought types in (added, type_changed), open and acknowledged. */
  changes: readonly SchemaChange[];
}

export interface ObserverState {
  obs: ObservationState;
  refused: ObservationState;
}

export interface ObserverHandOver extends ObserverState {
  settings: ObserveSettings;
  companyId: number;
}

export type Verdict<W> = { ok: true; wire: W; stripped: boolean } | { ok: false; reason: string };

export class RunObserver {
  #obs: Observation;
  /** Records refused (by the reader or the contract): observed for their changes only, never counted. */
  #refused: Observation;
  readonly #accepted: AcceptedSchema;
  /** Nothing was known of the company: this run sets the baseline (no change rows, no contract). */
  readonly baseline: boolean;
  /** The changes the run recorded, once `finish` ran. */
  changes: NewSchemaChange[] = [];

  constructor(
    private readonly s: ObserveSettings,
    private readonly companyId: number,
  ) {
    this.#obs = new Observation(s.valueCap);
    this.#refused = new Observation(s.valueCap);
    this.#accepted = new AcceptedSchema(s.known, s.changes);
    this.baseline = s.known.length === 0;
  }

  /** What a worker thread needs to observe the run's next records (./fresh-worker.ts). */
  handOver(): ObserverHandOver {
    return { settings: this.s, companyId: this.companyId, ...this.state() };
  }

  /** The observer a worker thread carries on with. */
  static carryOn(h: ObserverHandOver): RunObserver {
    const o = new RunObserver(h.settings, h.companyId);
    o.takeBack(h);
    return o;
  }

  /** What was observed so far, as plain data. */
  state(): ObserverState {
    return { obs: observationState(this.#obs), refused: observationState(this.#refused) };
  }

  /** Carries on from what a worker thread observed (it went on from this observer's state). */
  takeBack(s: ObserverState): void {
    this.#obs = observationFromState(this.s.valueCap, s.obs);
    this.#refused = observationFromState(this.s.valueCap, s.refused);
  }

  /**
   * On a baseline, counts the records the company has (the first sync that observes them): read
   * before the snapshot's transaction.
   */
  async countStored(store: Pick<SnapshotStore, "stored">): Promise<void> {
    if (this.baseline) await store.stored(this.companyId, "live", (r) => this.#fold(r, 1));
  }

  /** A new or changed record, read: counted, or refused by the contract (then `reason` says why). */
  take<W extends Record<string, unknown>>(kind: RecordKind, wire: W, id: number): Verdict<W> {
    const touches = this.#obs.walk(kind, wire);
    const mode = this.s.contract[kind];
    if (mode === "freeze" && !this.baseline) {
      const reason = this.#accepted.refusal(touches);
      if (reason) {
        this.#refused.count(this.#refused.walk(kind, wire), 1, id);
        return { ok: false, reason };
      }
    }
    this.#obs.count(touches, 1, id);
    if (mode !== "discard_value" || this.baseline || kind !== "plan")
      return { ok: true, wire, stripped: false };
    const kept = this.#accepted.stripPlan(wire) as W;
    return { ok: true, wire: kept, stripped: kept !== wire };
  }

  /**
   * Under discard_value, a stored plan's rows without the paths outside the schema (replay);
   * null when nothing is to be left out.
   */
  strip(wire: Record<string, unknown>): PlanRowSet | null {
    if (this.s.contract.plan !== "discard_value" || this.baseline) return null;
    const kept = this.#accepted.stripPlan(wire);
    return kept === wire ? null : normalizePlan(kept as WirePlan);
  }

  /**
   * A record the reader rejected (a documented field of another type, a missing id): observed
   * with the refused ones, so that a change it shows is recorded with how many records showed it.
   * Text that is no JSON object shows nothing.
   */
  rejected(kind: RecordKind, text: string | Buffer, id: number | null): void {
    if (this.baseline) return;
    const value = parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      this.#refused.record(kind, value, 1, id);
  }

  /** A stored record back as it was (a deleted one revived): counted. */
  revived(kind: RecordKind, text: string | Buffer, id: number): void {
    const value = parse(text);
    if (value !== undefined) this.#obs.record(kind, value, 1, id);
  }

  /**
   * At the end of the snapshot: takes back what the contents it replaced or deleted had added.
   * `texts` holds (at least) their stored texts; `replaced` says which of them were replaced.
   */
  uncountReplaced(texts: StoredTexts | null, replaced: ReadonlySet<string>): void {
    if (!texts || replaced.size === 0) return;
    for (const r of texts.records()) if (replaced.has(storedKey(r.entity, r.id))) this.#fold(r, -1);
  }

  /** The operation that writes the run's observations and changes, or none when nothing moved. */
  finish(runId: number, at: string, plansListed: boolean): SnapshotOp | null {
    const ctx = {
      companyId: this.companyId,
      runId,
      at,
      valueCap: this.s.valueCap,
      plansListed,
      baseline: this.baseline,
    };
    const write = settle(this.s.known, this.#obs, ctx);
    if (!this.baseline) write.changes.push(...refusedChanges(this.#refused, write, this.s));
    this.changes = write.changes;
    return write.paths.length || write.seen?.length || write.changes.length
      ? { op: "schema.write", write }
      : null;
  }

  #fold(r: StoredRecord, sign: 1 | -1): void {
    const value = parse(r.rawJson);
    // A plan another company held, taken over by this one: its old content was not ours.
    if (
      value === undefined ||
      (r.entity === "plan" && (value as { company_id?: unknown }).company_id !== this.companyId)
    )
      return;
    this.#obs.record(r.entity, value, sign, r.id);
  }
}

/** The key of a stored record in a set of replaced ones. */
export const storedKey = (entity: RecordKind, id: number): string => `${entity} ${id}`;

/**
 * Changes of records the run refused (the reader, or the contract), so that a person sees them,
 * with how many records showed each, and can acknowledge them (after which the contract accepts
 * them; the reader never does): a path or a type the run did not store, unless a change of the
 * company, open or acknowledged, says it already.
 */
function refusedChanges(
  refused: Observation,
  write: ReturnType<typeof settle>,
  s: ObserveSettings,
): NewSchemaChange[] {
  const refusedRun = settle([...s.known], refused, {
    companyId: 0,
    runId: 0,
    at: "",
    valueCap: s.valueCap,
    plansListed: false,
    baseline: false,
  });
  // Acknowledged ones too: the reader refuses the same records run after run, acknowledged or not.
  const said = new Set(
    [...s.changes, ...write.changes].map(
      (c) => `${c.entity}\u0000${c.path}\u0000${c.kind}\u0000${c.after ?? ""}`,
    ),
  );
  const nodes = new Map(refused.nodes.map((n) => [`${n.entity}\u0000${n.path}`, n]));
  return refusedRun.changes
    .filter(
      (c) =>
        (c.kind === "added" || c.kind === "type_changed") &&
        !said.has(`${c.entity}\u0000${c.path}\u0000${c.kind}\u0000${c.after ?? ""}`),
    )
    .map((c) => ({ ...c, refused: refusedCount(c, nodes.get(`${c.entity}\u0000${c.path}`)) }));
}

/**
 * How many refused values show a change: of a new path, all of them; of a type change, those of
 * the types it brought in (a plain field has one value per record: records).
 */
function refusedCount(c: NewSchemaChange, node: PathNode | undefined): number {
  if (!node) return 0;
  if (c.kind !== "type_changed") return node.present;
  const was = new Set((c.before ?? "").split(","));
  return JSON_TYPES.reduce((n, t, i) => (was.has(t) ? n : n + (node.types[i] ?? 0)), 0);
}

/** A stored or revived record's JSON value; undefined when its text does not parse. */
function parse(text: string | Buffer): unknown {
  const parsed = parseJson(typeof text === "string" ? text : text.toString("utf8"));
  return parsed.ok ? parsed.value : undefined;
}
