/**
 * The operations of a snapshot, written in batches. Plan operations are buffered and written
 * together, a statement per kind; a batch holds each plan id at most once (a second operation
 * on an id flushes the batch first), so the order of kinds within it does not matter. The
 * rest (reports) flush the batch and then run at their place in the sequence.
 * A full batch is written while the next one fills (the database works while we parse): one
 * write in flight at a time, in order, its failure reported by the next add or flush.
 */

import { rawText, type SnapshotMeta, type SnapshotOp } from "../../port-snapshot.js";
import type { PoolClient } from "../pool.js";
import { type RejectionContext, recordRejected, recordSyncError } from "../runs/record.js";
import { writeSchema } from "../schema/index.js";
import { PlanBatch, PlanWriter, type WriteContext } from "./plans.js";
import { ReportWriter } from "./reports.js";
import type { NewVersion } from "./versions.js";

type Reject = Extract<SnapshotOp, { op: "reject" }>;
type ErrorOp = Extract<SnapshotOp, { op: "error" }>;

/**
 * Operations per batch: about 5 MB of plan JSON per COPY. 5,000 rather than 500 cut the CPU of
 * a 100,000-plan full sync by about a quarter on both sides (fewer statements, fewer probes).
 */
export const BATCH_SIZE = 5000;

interface Batch {
  contents: PlanBatch;
  revives: NewVersion[];
  unlisted: number[];
  listed: number[];
  deletes: number[];
  rejects: Reject[];
  errors: ErrorOp[];
}

const emptyBatch = (): Batch => ({
  contents: new PlanBatch(),
  revives: [],
  unlisted: [],
  listed: [],
  deletes: [],
  rejects: [],
  errors: [],
});

export class SnapshotWriter {
  readonly #plans: PlanWriter;
  readonly #reports: ReportWriter;
  #batch = emptyBatch();
  #ids = new Set<number>();
  #size = 0;
  /** The batch being written, if any. */
  #writing: Promise<void> | null = null;

  constructor(
    private readonly db: PoolClient,
    private readonly meta: SnapshotMeta,
    ctx: WriteContext,
    private readonly rejections: RejectionContext,
    private readonly batchSize = BATCH_SIZE,
  ) {
    this.#plans = new PlanWriter(ctx);
    this.#reports = new ReportWriter(meta.startedAt, meta.runId);
  }

  /** A batch is being written: its statements need the event loop to move on. */
  get busy(): boolean {
    return this.#writing !== null;
  }

  /** Takes one operation; writes when the batch is full or the operation cannot wait. */
  async add(o: SnapshotOp): Promise<void> {
    const { db } = this;
    switch (o.op) {
      case "plan.insert":
      case "plan.update":
        await this.#planOp(o.plan.plan.id as number, (b) =>
          this.#plans.render(b.contents, o.plan, rawText(o.rawJson), o.hash, o.op === "plan.update"),
        );
        return;
      case "plan.renormalize":
        await this.#planOp(o.plan.plan.id as number, (b) => this.#plans.renderRewrite(b.contents, o.plan));
        return;
      case "plan.revive":
        await this.#planOp(o.id, (b) => b.revives.push({ id: o.id, contentHash: o.hash }));
        return;
      case "plan.unlisted":
        await this.#planOp(o.id, (b) => b.unlisted.push(o.id));
        return;
      case "plan.listed":
        await this.#planOp(o.id, (b) => b.listed.push(o.id));
        return;
      case "plan.delete":
        await this.#planOp(o.id, (b) => b.deletes.push(o.id));
        return;
      case "reject":
        return this.#queue((b) => b.rejects.push(o));
      case "error":
        return this.#queue((b) => b.errors.push(o));
    }
    await this.flush();
    switch (o.op) {
      case "report.write":
        return this.#reports.write(db, o.report, o.rawJson, o.hash);
      case "report.revive":
        return this.#reports.revive(db, o.id, o.hash);
      case "report.touch":
        return this.#reports.touch(db, o.id);
      case "report.delete":
        return this.#reports.markDeleted(db, o.id);
      case "report.renormalize":
        return this.#reports.renormalize(db, o.report);
      case "schema.write":
        return writeSchema(db, this.meta.companyId, this.meta.runId, this.meta.startedAt, o.write);
    }
  }

  /** Writes what the batch holds, and waits until everything is written. */
  async flush(): Promise<void> {
    await this.#startWrite();
    await this.#drain();
  }

  /** After the last operation: writes what is left, then the run's mobile apps. */
  async finish(): Promise<void> {
    await this.flush();
    await this.#plans.writeApps(this.db);
  }

  /** Waits for a write in flight to end, failed or not: before a ROLLBACK, nothing may follow it. */
  async settle(): Promise<void> {
    await this.#writing?.catch(() => {});
    this.#writing = null;
  }

  /** Starts writing the batch once the previous write is done; does not wait for it. */
  async #startWrite(): Promise<void> {
    if (this.#size === 0) return;
    const b = this.#batch;
    this.#batch = emptyBatch();
    this.#ids.clear();
    this.#size = 0;
    await this.#drain();
    const writing = this.#write(b);
    // Reported by the next #drain; until then, not an unhandled rejection.
    writing.catch(() => {});
    this.#writing = writing;
  }

  async #drain(): Promise<void> {
    const writing = this.#writing;
    this.#writing = null;
    await writing;
  }

  async #write(b: Batch): Promise<void> {
    const { db } = this;
    const { runId } = this.meta;
    await this.#plans.write(db, b.contents);
    await this.#plans.revive(db, b.revives);
    await this.#plans.listed(db, b.listed);
    await this.#plans.unlisted(db, b.unlisted);
    await this.#plans.markDeleted(db, b.deletes);
    await recordRejected(db, this.rejections, b.rejects);
    for (const e of b.errors) await recordSyncError(db, runId, e);
  }

  async #planOp(id: number, push: (b: Batch) => void): Promise<void> {
    if (this.#ids.has(id)) await this.#startWrite();
    this.#ids.add(id);
    await this.#queue(push);
  }

  async #queue(push: (b: Batch) => void): Promise<void> {
    push(this.#batch);
    if (++this.#size >= this.batchSize) await this.#startWrite();
  }
}
