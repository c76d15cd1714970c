import { mkdirSync, mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Decided } from "../../src/sync/fresh-decisions.js";
import { beat, OpSpoolWriter, opProgress } from "../../src/sync/op-spool.js";
import { readOps } from "../../src/sync/op-spool-reader.js";
import { RowsEncoder } from "../../src/sync/rows-codec.js";
import type { PlanRowSet } from "../../src/tables/index.js";
import { drain, planRows as plan } from "../support/decided-ops.js";

/** A frame as the writer makes it: its body's length, a kind (or its text's length), the body. */
function frameOf(body: string | Buffer, kind: number): Buffer {
  const j = Buffer.from(body);
  const head = Buffer.alloc(8);
  head.writeUInt32LE(j.length, 0);
  head.writeInt32LE(kind, 4);
  return Buffer.concat([head, j]);
}

/** A plan's rows as the worker encodes them, and the frames of the row shapes they use. */
function encodedPlan(): { shapes: Buffer; rows: Buffer } {
  const shapes: Buffer[] = [];
  const encoder = new RowsEncoder((id, keys) => shapes.push(frameOf(JSON.stringify([id, keys]), -3)));
  const rows = encoder.encode(plan(1, "a"), "h");
  return { shapes: Buffer.concat(shapes), rows };
}

const big = `{"id":3,"pad":"${'\\"'.repeat(700_000)}"}`;

const OPS: Decided[] = [
  {
    op: "plan.write",
    plan: plan(1, "Çalışma テスト 🚀"),
    rawJson: '{"id":1,"plan_name":"Çalışma テスト 🚀"}',
    hash: "a".repeat(64),
  },
  {
    op: "reject",
    entity: "plan",
    entityId: null,
    reason: "not an object",
    rawJson: null,
    hash: "b".repeat(64),
  },
  { op: "reject", entity: "plan", entityId: 2, reason: "x", rawJson: "", hash: "c".repeat(64) },
  // Larger than a read: it spans chunks.
  { op: "plan.write", plan: plan(3, "big"), rawJson: big, hash: "d".repeat(64) },
  // Frames larger than the writer's pending buffer, made in place from three-byte characters (a
  // text, then rows; the buffer grows, then goes back to its size), and a small one after them.
  {
    op: "plan.write",
    plan: plan(4, "€"),
    rawJson: `{"id":4,"pad":"${"€".repeat(1_000_000)}"}`,
    hash: "e".repeat(64),
  },
  { op: "plan.write", plan: plan(5, "€".repeat(1_000_000)), rawJson: '{"id":5}', hash: "f".repeat(64) },
  {
    op: "reject",
    entity: "plan",
    entityId: 6,
    reason: "€".repeat(1_000_000),
    rawJson: "€ ü 🚀",
    hash: "0".repeat(64),
  },
  ...Array.from(
    { length: 3000 },
    (_, i): Decided => ({
      op: "plan.write",
      plan: plan(10 + i, `plan ${i}`),
      rawJson: JSON.stringify({ id: 10 + i, pad: "é".repeat(i % 500) }),
      hash: String(i).padStart(64, "0"),
    }),
  ),
];

/**
 * The operations as read back: a mobile app that an earlier plan of the file carried is left out
 * (every plan of OPS carries app 9; the stores write a run's first row of each app).
 */
const firstPlan = OPS.findIndex((op) => op.op === "plan.write");
const BACK: Decided[] = OPS.map((op, i) =>
  op.op === "plan.write" && i > firstPlan ? { ...op, plan: { ...op.plan, mobileApps: [] } } : op,
);

describe("the decided operations' file", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tas-op-spool-test-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives back every operation as written, texts byte for byte, across the reads' chunks, and its end", () => {
    const w = new OpSpoolWriter(dir);
    for (const op of OPS) w.append(op);
    w.end({ tally: [1, 2] });
    expect(w.count).toBe(OPS.length);
    expect(drain(readOps(w.path))).toEqual({ ops: BACK, end: { tally: [1, 2] } });
    // A plan's text comes back as its bytes (no string made of it), each view still its own
    // text once the whole file was read (a read buffer is never filled again).
    const waits = { ms: 0 };
    const back = [...readOps(w.path, null, { waits })];
    expect(waits.ms).toBe(0);
    const texts = OPS.map((op) => (op.op === "plan.write" ? Buffer.from(op.rawJson) : null));
    expect(back.filter((op) => op.op === "plan.write").length).toBeGreaterThan(3000);
    back.forEach((op, i) => {
      if (op.op !== "plan.write") return;
      expect(Buffer.isBuffer(op.rawJson)).toBe(true);
      expect((op.rawJson as Buffer).equals(texts[i] as Buffer)).toBe(true);
    });
  });

  it("is read while another thread writes it, the reader waiting for each flush", async () => {
    // The file as the worker writes it (plans' rows in bytes), made whole in a folder aside...
    const aside = join(dir, "aside");
    mkdirSync(aside);
    const whole = new OpSpoolWriter(aside);
    for (const op of OPS) whole.append(op);
    whole.end("done");
    // ...then handed over by a thread in 64 KiB pieces, frames cut anywhere, with pauses.
    const progress = opProgress();
    const source = `
      const { workerData: w } = require("node:worker_threads");
      const { closeSync, openSync, readFileSync, writeSync } = require("node:fs");
      const bytes = readFileSync(w.from);
      const fd = openSync(w.path, "w");
      for (let at = 0, k = 0; at < bytes.length; k++) {
        const n = writeSync(fd, bytes, at, Math.min(65536, bytes.length - at), at);
        at += n;
        Atomics.store(w.progress, 0, BigInt(at));
        Atomics.notify(w.progress, 0);
        if (k % 8 === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      }
      closeSync(fd);
      Atomics.store(w.progress, 1, 1n);
      Atomics.notify(w.progress, 0);
    `;
    const path = join(dir, "decided.bin");
    // The file exists before the thread starts (the reader opens it first).
    writeFileSync(path, "");
    const writer = new Worker(source, { eval: true, workerData: { from: whole.path, path, progress } });
    try {
      // The time the reader waited for the writer is added up (the write lock's share of it, in
      // a sync): some of the reading, and no more than all of it.
      const waits = { ms: 0 };
      const began = performance.now();
      expect(drain(readOps(path, progress, { waits }))).toEqual({ ops: BACK, end: "done" });
      expect(waits.ms).toBeGreaterThan(0);
      expect(waits.ms).toBeLessThanOrEqual(performance.now() - began);
    } finally {
      await writer.terminate();
    }
  });

  it("refuses a file that ends inside an operation, or before its end", () => {
    const w = new OpSpoolWriter(dir);
    w.append({
      op: "reject",
      entity: "plan",
      entityId: 1,
      reason: "r",
      rawJson: "text",
      hash: "e".repeat(64),
    });
    w.end(null);
    const size = statSync(w.path).size;
    truncateSync(w.path, size - 2);
    expect(() => drain(readOps(w.path))).toThrow(/ends inside an operation/);
    truncateSync(w.path, size - 12);
    expect(() => drain(readOps(w.path))).toThrow(/ends before its end frame/);
  });

  it("refuses a plan whose frame carries no text", () => {
    const { shapes, rows } = encodedPlan();
    const path = join(dir, "decided.bin");
    writeFileSync(path, Buffer.concat([shapes, frameOf(rows, -1), frameOf('"end"', -2)]));
    expect(() => drain(readOps(path))).toThrow(/holds a plan without its text/);
  });

  it("refuses a frame of bad plan rows, saying where it is in the file (past the first read)", () => {
    const { shapes, rows } = encodedPlan();
    // A rejection with a text of 1.5 MB first: the bad frame lies past the reader's first 1 MiB.
    const text = Buffer.alloc(1_500_000, "x");
    const reject = JSON.stringify({ op: "reject", entity: "plan", entityId: null, reason: "r", hash: "h" });
    const before = Buffer.concat([shapes, frameOf(reject, text.length), text]);
    // The rows one byte short in their frame: the last byte is taken for the frame's text.
    const short = frameOf(rows.subarray(0, rows.length - 1), 1);
    const last = Buffer.from([rows[rows.length - 1] as number]);
    const path = join(dir, "decided.bin");
    writeFileSync(path, Buffer.concat([before, short, last, frameOf('"end"', -2)]));
    expect(() => drain(readOps(path))).toThrow(
      `the decided operations' file holds a bad frame at byte ${before.length} (${path}): a value past the rows' end`,
    );
  });

  it("keeps the numbers JSON has no text for in the end frame (an observation's extremes)", () => {
    const w = new OpSpoolWriter(dir);
    w.end({
      min: -0,
      max: Number.POSITIVE_INFINITY,
      low: Number.NEGATIVE_INFINITY,
      odd: { $number: 1 },
      n: 2.5,
    });
    const { end } = drain(readOps<Record<string, unknown>>(w.path));
    expect(Object.is(end.min, -0)).toBe(true);
    expect(end).toEqual({
      min: -0,
      max: Number.POSITIVE_INFINITY,
      low: Number.NEGATIVE_INFINITY,
      odd: { $number: 1 },
      n: 2.5,
    });
  });

  it("leaves out the mobile apps an earlier plan of the file carried, and only those", () => {
    const app = (id: number) => ({ id, name: `app ${id}` });
    const withApps = (id: number, apps: number[]): Decided => {
      const p = plan(id, `p${id}`);
      return {
        op: "plan.write",
        plan: { ...p, mobileApps: apps.map(app) } as PlanRowSet,
        rawJson: "{}",
        hash: "h",
      };
    };
    const w = new OpSpoolWriter(dir);
    // A rejected element's app does not count: only plans are written.
    w.append({ op: "reject", entity: "plan", entityId: 1, reason: "r", rawJson: '{"apps":[12]}', hash: "r" });
    for (const d of [withApps(1, [9, 10]), withApps(2, [9, 11]), withApps(3, [10]), withApps(4, [12, 12])])
      w.append(d);
    w.end(null);
    const apps = drain(readOps(w.path))
      .ops.filter((o) => o.op === "plan.write")
      .map((o) => (o.op === "plan.write" ? o.plan.mobileApps.map((a) => a.id) : []));
    expect(apps).toEqual([[9, 10], [11], [], [12, 12]]);
  });

  it("gives up on a writer whose heartbeat stands still, and waits on one that beats", async () => {
    const progress = opProgress();
    const w = new OpSpoolWriter(dir);
    const path = w.path;
    // Nothing written, no heartbeat: the reader stops waiting.
    expect(() => drain(readOps(path, progress, { stallMs: 300 }))).toThrow(/stopped reading 0.3 s ago/);
    // A writer that beats for about three seconds (reading a long record), writing nothing, then
    // ends the file: the reader, which gives up after 2 s without a beat, waits for it.
    const writer = new Worker(
      `const { workerData: { progress, path } } = require("node:worker_threads");
       const { writeFileSync } = require("node:fs");
       for (let i = 0; i < 60; i++) { Atomics.add(progress, 2, 1n); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); }
       const json = Buffer.from(JSON.stringify("done"));
       const head = Buffer.alloc(8); head.writeUInt32LE(json.length, 0); head.writeInt32LE(-2, 4);
       writeFileSync(path, Buffer.concat([head, json]));
       Atomics.store(progress, 0, BigInt(8 + json.length)); Atomics.store(progress, 1, 1n); Atomics.notify(progress, 0);`,
      { eval: true, workerData: { progress, path } },
    );
    try {
      beat(progress);
      expect(drain(readOps(path, progress, { stallMs: 2000 })).end).toBe("done");
      expect(Atomics.load(progress, 2)).toBe(61n);
    } finally {
      await writer.terminate();
    }
  });
});
