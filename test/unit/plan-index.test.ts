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
        fc.uniqueArray(plan, { selector: (p) => p.id, maxLength: 300 }),
        fc.array(fc.maxSafeInteger(), { maxLength: 20 }),
        (plans, probes) => {
          const byId = new Map(
            plans.map((p) => [p.id, { hash: sha(`${p.id}:${p.text}`), deleted: p.deleted }]),
          );
          const byHash = new Map([...byId].map(([id, k]) => [k.hash, id]));
          const index = planIndexOf(byId);
          expect(index.size).toBe(byId.size);
          expect([...index]).toEqual([...byId]);
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
    for (let i = 0; i < n; i++) {
      expect(index.idOfHash(sha(String(i)))).toBe(1_000_000 + i * 7);
      expect(index.idAt(i)).toBe(1_000_000 + i * 7);
      expect(index.deletedAt(i)).toBe(i % 3 === 0);
    }
    expect(index.has(1_000_001)).toBe(false);
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
