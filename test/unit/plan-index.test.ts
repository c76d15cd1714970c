import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanIndexBuilder, planIndexOf } from "../../src/store/plan-index.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("PlanIndex", () => {
  it("answers like two Maps (by id, by content hash) for any set of plans", () => {
    const plan = fc.record({
      id: fc.oneof(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.maxSafeInteger(),
        fc.integer({ min: -5, max: 5 }),
      ),
      text: fc.string(),
      deleted: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(plan, { selector: (p) => p.id, maxLength: 1500 }),
        fc.array(fc.maxSafeInteger(), { maxLength: 20 }),
        (plans, probes) => {
          const byId = new Map(
            plans.map((p) => [p.id, { hash: sha(`${p.id}:${p.text}`), deleted: p.deleted }]),
          );
          const byHash = new Map([...byId].map(([id, k]) => [k.hash, id]));
          const index = planIndexOf(byId);
          expect(index.size).toBe(byId.size);
          expect([...index]).toEqual([...byId]);
          expect([...index.live()]).toEqual([...byId].filter(([, k]) => !k.deleted).map(([id]) => id));
          for (const [id, known] of byId) {
            expect(index.has(id)).toBe(true);
            expect(index.get(id)).toEqual(known);
            expect(index.isDeleted(id)).toBe(known.deleted);
            expect(index.idOfHash(known.hash)).toBe(byHash.get(known.hash));
          }
          for (const id of probes) {
            expect(index.has(id)).toBe(byId.has(id));
            expect(index.isDeleted(id)).toBe(byId.get(id)?.deleted);
            expect(index.idOfHash(sha(`probe ${id}`))).toBeUndefined();
          }
        },
      ),
    );
  });

  it("grows past its first allocation and keeps every plan", () => {
    const b = new PlanIndexBuilder();
    const n = 5000;
    for (let i = 0; i < n; i++) b.add(1_000_000 + i * 7, sha(String(i)), i % 3 === 0);
    const index = b.build();
    expect(index.size).toBe(n);
    for (let i = 0; i < n; i++) expect(index.idOfHash(sha(String(i)))).toBe(1_000_000 + i * 7);
    const live = Array.from({ length: n }, (_, i) => i)
      .filter((i) => i % 3 !== 0)
      .map((i) => 1_000_000 + i * 7);
    expect([...index.live()]).toEqual(live);
    expect(index.has(1_000_001)).toBe(false);
  });

  it("tells apart digests that share their first bytes, and lets the last plan with a hash win, as a Map did", () => {
    // Fake digests: the same first eight hex digits (one probe start), then different.
    const fake = (i: number) => `deadbeef${i.toString(16).padStart(56, "0")}`;
    const plans: [number, { hash: string; deleted: boolean }][] = [];
    for (let i = 0; i < 50; i++) plans.push([i + 1, { hash: fake(i), deleted: false }]);
    // Two plans with one content (never ours: the content holds the id), and again past the table's first size.
    plans.push([100, { hash: fake(7), deleted: true }]);
    for (let i = 0; i < 40; i++) plans.push([200 + i, { hash: sha(`x${i}`), deleted: false }]);
    plans.push([300, { hash: sha("x3"), deleted: false }]);
    const byHash = new Map(plans.map(([id, k]) => [k.hash, id]));
    const index = planIndexOf(plans);
    for (const hash of byHash.keys()) expect(index.idOfHash(hash)).toBe(byHash.get(hash));
    expect(index.idOfHash(fake(7))).toBe(100);
    expect(index.idOfHash(sha("x3"))).toBe(300);
    expect(index.idOfHash(fake(50))).toBeUndefined();
    expect(index.get(8)).toEqual({ hash: fake(7), deleted: false });
    expect(index.get(100)).toEqual({ hash: fake(7), deleted: true });
  });

  it("keeps a stored hash that is not lowercase hex as it is, found by itself only", () => {
    const index = planIndexOf([
      [1, { hash: "z".repeat(64), deleted: false }],
      [2, { hash: "r1", deleted: false }],
      [3, { hash: sha("three"), deleted: false }],
    ]);
    expect(index.idOfHash("z".repeat(64))).toBe(1);
    expect(index.idOfHash("r1")).toBe(2);
    expect(index.get(2)).toEqual({ hash: "r1", deleted: false });
    expect(index.idOfHash("f".repeat(64))).toBeUndefined();
    expect(index.idOfHash(sha("three").toUpperCase())).toBeUndefined();
    expect(index.idOfHash(`${sha("three").slice(0, 63)}g`)).toBeUndefined();
    expect(index.idOfHash(sha("three"))).toBe(3);
    expect(index.has(1) && index.has(2)).toBe(true);
  });
});
