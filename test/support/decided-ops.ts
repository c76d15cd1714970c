/** Helpers for tests of the decided operations' file (src/sync/op-spool.ts) and its users. */
import { rawText } from "../../src/store/port-snapshot.js";
import type { Decided, DecidedOp } from "../../src/sync/fresh-decisions.js";
import type { PlanRowSet } from "../../src/tables/index.js";

/** A plan's rows, of several shapes (two in one list), with an app shared by every plan (id 9). */
export const planRows = (id: number, name: string) =>
  ({
    plan: { id, companyId: 1, planName: name, enabled: true, period: null, weird: { nested: [1, "x"] } },
    days: id % 2 ? [{ planId: id, dayNumber: 2 }] : [],
    resolutions: [],
    environments: [],
    scenarios: [
      { planId: id, scenarioId: 3, position: 0 },
      // Another shape in the same list.
      { planId: id, scenarioId: 4, position: 1, extra: "é" },
    ],
    alerts: [],
    fetchAppFiles: [],
    mobileApps: [{ id: 9, name: null }],
    planMobileApps: [],
  }) as unknown as PlanRowSet;

/** Every operation, then the end frame's value. */
export function drain<E>(ops: Generator<DecidedOp, E>): { ops: Decided[]; end: E } {
  const out: Decided[] = [];
  for (let step = ops.next(); ; step = ops.next()) {
    if (step.done) return { ops: out, end: step.value };
    const op = step.value;
    // A plan's text may come back as its bytes (see the first test): compared as text.
    out.push(op.op === "plan.write" ? { ...op, rawJson: rawText(op.rawJson) } : op);
  }
}
