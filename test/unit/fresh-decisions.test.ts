import { describe, expect, it } from "vitest";
import { readPlan } from "../../src/normalize/read.js";
import { FreshDecisions } from "../../src/sync/fresh-decisions.js";

const COMPANY = 7;
const plan = (id: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, company_id: COMPANY, ...extra });

/** Decides `elements` (texts at positions 0..n-1) against known plans matched at `matched`. */
function decideAll(elements: string[], matched: Record<number, number> = {}) {
  const d = new FreshDecisions(COMPANY, null, (id) => matched[id]);
  const ops = elements.map((text, position) => {
    const o = d.decide({ position, hash: `h${position}`, read: readPlan(text) });
    return o === null
      ? null
      : o.op === "reject"
        ? `reject ${o.entityId}: ${o.reason}`
        : `write ${o.plan.plan.id} h${o.hash.slice(1)}`;
  });
  return { ops, d };
}

describe("deciding the new or changed elements, in list order", () => {
  it("keeps the first copy of an id and rejects the later ones, saying where", () => {
    const { ops, d } = decideAll([plan(1), plan(2), plan(1, { plan_name: "again" })]);
    expect(ops).toEqual([
      "write 1 h0",
      "write 2 h1",
      "reject 1: plan id 1 appears twice in the response (elements 1 and 3); this later copy was rejected",
    ]);
    expect([...d.seen]).toEqual([
      [1, 0],
      [2, 1],
    ]);
  });

  it("lets a copy rejected for what it holds claim nothing: the first valid copy wins", () => {
    const { ops, d } = decideAll([plan(5, { enabled: "yes" }), plan(5)]);
    expect(ops[0]).toMatch(/^reject 5: /);
    expect(ops[1]).toBe("write 5 h1");
    expect(d.seen.get(5)).toBe(1);
    // Alone, a rejected copy still marks its id as met (a known plan is not deleted).
    expect(decideAll([plan(6, { enabled: "yes" })]).d.seen.get(6)).toBe(-1);
  });

  it("holds an element against the known plans matched before it, not after", () => {
    const before = decideAll([plan(1), plan(3)], { 3: 0 });
    expect(before.ops[1]).toBe(
      "reject 3: plan id 3 appears twice in the response (elements 1 and 2); this later copy was rejected",
    );
    const after = decideAll([plan(3)], { 3: 4 });
    expect(after.ops).toEqual(["write 3 h0"]);
  });

  it("counts another company's plans and elements without a usable id, storing neither as a plan", () => {
    const { ops, d } = decideAll([
      JSON.stringify({ id: 9, company_id: COMPANY + 1 }),
      JSON.stringify("just a string"),
    ]);
    expect(ops[0]).toBeNull();
    expect(ops[1]).toMatch(/^reject null: /);
    expect([d.foreignCount, d.foreignCompany, d.anonymous]).toEqual([1, COMPANY + 1, 1]);
  });
});
