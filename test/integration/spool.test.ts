import { readdirSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { planIndexOf } from "../../src/store/plan-index.js";
import { rawText } from "../../src/store/port-snapshot.js";
import { contentHash, PlanListReceiver } from "../../src/sync/plan-list.js";
import { Spool } from "../../src/sync/spool.js";

describe("Spool", () => {
  it("gives back every record in order, across flushes, with non-ASCII text intact", () => {
    const spool = new Spool();
    try {
      const records = Array.from({ length: 5000 }, (_, i) =>
        JSON.stringify({ id: i, label: `Çalışma テスト ${"x".repeat(i % 700)}` }),
      );
      for (const r of records) spool.append(Buffer.from(r));
      expect(spool.count).toBe(5000);
      expect([...spool.records()].map((b) => b.toString("utf8"))).toEqual(records);
    } finally {
      spool.dispose();
    }
  });

  it("turns line breaks between JSON tokens into spaces, keeping the content", () => {
    const spool = new Spool();
    try {
      spool.append(Buffer.from('{\n  "id": 1,\r\n  "s": "a\\nb"\n}'));
      const [line] = [...spool.records()];
      expect(JSON.parse(String(line))).toEqual({ id: 1, s: "a\nb" });
    } finally {
      spool.dispose();
    }
  });
});

/** Every decided operation, then the tally. */
function drain<T, R>(g: Generator<T, R>): { ops: T[]; tally: R } {
  const ops: T[] = [];
  for (let step = g.next(); ; step = g.next()) {
    if (step.done) return { ops, tally: step.value };
    ops.push(step.value);
  }
}

describe("the plan list's spool", () => {
  const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`tas-spool-${process.pid}-`));
  const index = (rejected: string[]) => ({
    known: planIndexOf([]),
    unlisted: new Set<number>(),
    rejected: new Set(rejected),
  });

  const opts = { companyId: 1, observer: null, readAheadBytes: 1024 };

  it("keeps an element the newest sync rejected in memory, past the read-ahead budget", async () => {
    const big = Buffer.from(JSON.stringify({ id: 7, scenarios: 7, pad: "x".repeat(4096) }));
    const other = Buffer.from(JSON.stringify({ id: 8, pad: "y".repeat(4096) }));
    const before = spools().length;
    const again = new PlanListReceiver(index([contentHash(big)]), opts);
    again.add(big);
    expect(spools().length).toBe(before);
    again.read();
    expect(drain(again.decided()).ops.map((d) => d.op === "reject" && d.entityId)).toEqual([7]);
    again.dispose();
    // Any other element past the budget goes to the spool, read by the worker thread (which
    // writes its decisions into the spool's folder).
    const fresh = new PlanListReceiver(index([contentHash(big)]), opts);
    fresh.add(other);
    expect(spools().length).toBe(before + 1);
    fresh.read();
    expect(drain(fresh.decided()).ops.map((d) => d.op === "reject" && d.entityId)).toEqual([8]);
    fresh.dispose();
    expect(spools().length).toBe(before);
  });

  it("hands the worker thread each element with its own position and hash, across the spool's flushes", async () => {
    // 3,000 plans of company 1, the last 1,000 second copies of the first (rejected, saying where).
    const elements = Array.from({ length: 3000 }, (_, i) =>
      Buffer.from(JSON.stringify({ id: (i % 2000) + 1, company_id: 1, plan_name: "z".repeat(i % 900) })),
    );
    const list = new PlanListReceiver(index([]), opts);
    try {
      for (const e of elements) list.add(e);
      list.read();
      expect(list.readerWaitMs).toBe(0);
      const decided = drain(list.decided());
      // Drained at once, while the thread starts and reads: what it waited for is told.
      expect(list.readerWaitMs).toBeGreaterThan(0);
      const ops = decided.ops.map((d) =>
        d.op === "reject" ? [d.entityId, d.reason] : [d.plan.plan.id, rawText(d.rawJson), d.hash],
      );
      expect(ops).toEqual(
        elements.map((e, i) =>
          i < 2000
            ? [i + 1, e.toString(), contentHash(e)]
            : [
                i - 1999,
                `plan id ${i - 1999} appears twice in the response (elements ${i - 1999} and ${i + 1}); this later copy was rejected`,
              ],
        ),
      );
      expect(decided.tally.seen.size).toBe(2000);
    } finally {
      list.dispose();
    }
    // Its files' descriptors are closed once the thread has stopped: a deleted spool file held
    // open would keep its space (in a daemon, one list's worth per large sync).
    const held = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).includes(`tas-spool-${process.pid}-`);
        } catch {
          return false;
        }
      });
    for (let i = 0; i < 200 && held().length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(held()).toEqual([]);
  });

  it("hands the worker an element the newest sync rejected as it came, not through the spool file", () => {
    // Raw line breaks: the spool file would make them spaces (another text, another hash).
    const bad = Buffer.from('{"id": 4,\n "company_id": 1,\n "enabled": "yes"}');
    const list = new PlanListReceiver(index([contentHash(bad)]), opts);
    try {
      list.add(Buffer.from(JSON.stringify({ id: 1, company_id: 1, plan_name: "x".repeat(2048) })));
      list.add(bad);
      list.add(Buffer.from(JSON.stringify({ id: 2, company_id: 1 })));
      list.read();
      const { ops } = drain(list.decided());
      expect(ops.map((d) => (d.rawJson === null ? null : rawText(d.rawJson)))).toEqual([
        JSON.stringify({ id: 1, company_id: 1, plan_name: "x".repeat(2048) }),
        bad.toString(),
        JSON.stringify({ id: 2, company_id: 1 }),
      ]);
    } finally {
      list.dispose();
    }
  });
});
