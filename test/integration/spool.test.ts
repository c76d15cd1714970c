import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { planIndexOf } from "../../src/store/plan-index.js";
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

  it("starts again from nothing after reset", () => {
    const spool = new Spool();
    try {
      for (let i = 0; i < 3000; i++) spool.append(Buffer.from(`{"old":${i},"pad":"${"y".repeat(500)}"}`));
      [...spool.records()]; // flushed to the file
      spool.reset();
      spool.append(Buffer.from('{"new":1}'));
      expect([...spool.records()].map(String)).toEqual(['{"new":1}']);
      expect(spool.count).toBe(1);
    } finally {
      spool.dispose();
    }
  });
});

describe("the plan list's spool", () => {
  const spools = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`tas-spool-${process.pid}-`));
  const index = (rejected: string[]) => ({
    known: planIndexOf([]),
    unlisted: new Set<number>(),
    rejected: new Set(rejected),
  });

  it("keeps an element the newest sync rejected in memory, past the read-ahead budget", () => {
    const big = Buffer.from(JSON.stringify({ id: 7, scenarios: 7, pad: "x".repeat(4096) }));
    const other = Buffer.from(JSON.stringify({ id: 8, pad: "y".repeat(4096) }));
    const before = spools().length;
    const again = new PlanListReceiver(index([contentHash(big)]), 1024);
    again.add(big);
    expect(spools().length).toBe(before);
    expect([...again.fresh()].map((f) => f.position)).toEqual([0]);
    again.dispose();
    // Any other element past the budget goes to the spool.
    const fresh = new PlanListReceiver(index([contentHash(big)]), 1024);
    fresh.add(other);
    expect(spools().length).toBe(before + 1);
    fresh.dispose();
    expect(spools().length).toBe(before);
  });
});
