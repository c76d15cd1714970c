import { describe, expect, it } from "vitest";
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
