/**
 * A replay's operations in the decided operations' file: every kind written and read back as
 * made, and run to their end before the transaction opens (src/sync/spooled-ops.ts).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawText, type SnapshotOp } from "../../src/store/port-snapshot.js";
import { OpSpoolWriter } from "../../src/sync/op-spool.js";
import { readOps } from "../../src/sync/op-spool-reader.js";
import { spoolOps } from "../../src/sync/spooled-ops.js";
import { planRows as plan } from "../support/decided-ops.js";

describe("a replay's operations in the decided operations' file", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tas-spooled-ops-test-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("gives back a replay's operations as made: plans with or without a text, properties absent stay absent", () => {
    const report = { report: { id: 7, name: "r" }, recipients: [] } as never;
    const made: SnapshotOp[] = [
      { op: "plan.renormalize", plan: plan(1, "again") },
      { op: "plan.insert", plan: plan(2, "new"), rawJson: '{"id":2}', hash: "f".repeat(64) },
      {
        op: "plan.update",
        plan: plan(3, "ü"),
        rawJson: Buffer.from('{"id":3,"n":"ü"}'),
        hash: "0".repeat(64),
      },
      { op: "report.renormalize", report },
      { op: "report.write", report, rawJson: '{"id":7}', hash: "1".repeat(64), known: true },
      { op: "plan.delete", id: 4 },
      {
        op: "schema.write",
        write: {
          paths: [
            {
              companyId: 1,
              entity: "plan",
              path: "$.n",
              present: 2,
              types: { number: 2 } as never,
              minNumber: -0,
              maxNumber: Number.POSITIVE_INFINITY,
              valuesCapped: false,
              values: [],
              firstRunId: 1,
              firstSeenAt: "2025-01-01T00:00:00.000Z",
              lastRunId: 2,
              lastSeenAt: null,
              valuesKept: true,
            },
          ],
          changes: [],
        },
      },
      { op: "error", entity: "plans", entityId: null, code: "X", httpStatus: null, message: "m" },
      { op: "reject", entity: "plan", entityId: 5, reason: "r", rawJson: null, hash: "2".repeat(64) },
      { op: "plan.revive", id: 6, hash: "3".repeat(64) },
    ];
    const w = new OpSpoolWriter(dir);
    for (const op of made) w.append(op);
    w.end({ run: "end" });
    const back: SnapshotOp[] = [];
    const ops = readOps<unknown, SnapshotOp>(w.path);
    let step = ops.next();
    for (; !step.done; step = ops.next()) back.push(step.value);
    expect(step.value).toEqual({ run: "end" });
    const asText = (o: SnapshotOp) =>
      "rawJson" in o && o.rawJson !== null && typeof o.rawJson !== "string"
        ? { ...o, rawJson: rawText(o.rawJson) }
        : o;
    // The later plans' app 9 is left out: the file carries an app once.
    const expected = made.map((o, i) =>
      i > 0 && "plan" in o ? { ...o, plan: { ...o.plan, mobileApps: [] } } : o,
    );
    expect(back.map(asText)).toEqual(expected.map(asText));
    // No text property where the operation had none (toEqual would take an undefined one as absent).
    expect(back.map((o) => "rawJson" in o)).toEqual(made.map((o) => "rawJson" in o));
    const [path] = (back[6] as Extract<SnapshotOp, { op: "schema.write" }>).write.paths;
    expect(Object.is(path?.minNumber, -0)).toBe(true);
    expect(path?.maxNumber).toBe(Number.POSITIVE_INFINITY);
  });

  it("spools a generator's operations before they are applied, and deletes its file", () => {
    const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`tas-spool-${process.pid}-`));
    const before = spools();
    let made = 0;
    function* ops(): Generator<SnapshotOp, string> {
      for (let id = 1; id <= 3; id++) {
        made++;
        yield { op: "plan.renormalize", plan: plan(id, `p${id}`) };
      }
      return "end";
    }
    const spooled = spoolOps(ops());
    // All made before anything is read back.
    expect(made).toBe(3);
    const [dirOf] = spools().filter((n) => !before.includes(n));
    expect(dirOf).toBeDefined();
    const back = spooled.read();
    const ids: number[] = [];
    let step = back.next();
    for (; !step.done; step = back.next())
      if (step.value.op === "plan.renormalize") ids.push(step.value.plan.plan.id as number);
    expect({ ids, end: step.value }).toEqual({ ids: [1, 2, 3], end: "end" });
    spooled.dispose();
    expect(existsSync(join(tmpdir(), dirOf as string))).toBe(false);
    // A generator that throws leaves no file behind.
    function* broken(): Generator<SnapshotOp, string> {
      yield { op: "plan.delete", id: 1 };
      throw new Error("unreadable");
    }
    const descriptors = () => readdirSync("/proc/self/fd").length;
    const open = descriptors();
    expect(() => spoolOps(broken())).toThrow("unreadable");
    expect(spools()).toEqual(before);
    // Its file closed too.
    expect(descriptors()).toBe(open);
  });
});
