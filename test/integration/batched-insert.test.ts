/**
 * Child rows written many to a statement (compileBatchedInsert, the SQLite plan writer): every
 * row lands once, in full, whatever the count against the batch size; a table with a secondary
 * index is written row by row; and rows still pending never meet a delete of their plan.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { normalizePlan } from "../../src/normalize/plan.js";
import { compileBatchedInsert, compileInsert } from "../../src/store/sqlite/binder.js";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { PlanWriter } from "../../src/store/sqlite/snapshot/plans.js";
import { planDaysOfWeek, planEnvironments, planScenarios } from "../../src/tables/sqlite/index.js";
import { planSchema } from "../../src/wire/schemas.js";

const dir = mkdtempSync(join(tmpdir(), "tas-batched-insert-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const open = () => openSqliteStore(join(dir, `db${n++}.sqlite`));

const plan = (id: number, scenarios: number[], environments: number[]) =>
  normalizePlan(
    planSchema.parse({
      id,
      company_id: 5251,
      project_id: 12,
      plan_name: `plan ${id}`,
      enabled: true,
      scenarios,
      environments: environments.map((e) => ({ id: e })),
      period: {
        period_type: "REPETITIVE",
        start_date: 1506781800000,
        days_of_week: "2,3,4",
        repeat_period: 60,
      },
      resolutions: { WIN10: "1920x1080", LINUX: "1024x768" },
    }),
  );

describe("compileBatchedInsert", () => {
  it.each([0, 1, 31, 32, 33, 64, 100])("writes %i rows exactly as one statement per row does", (count) => {
    const a = open();
    const b = open();
    try {
      const rows = Array.from({ length: count }, (_, i) => ({
        planId: Math.floor(i / 7),
        dayNumber: i % 7,
        dayName: i % 3 === 0 ? `Çarşamba ${i}` : `day ${i}`,
      }));
      const batched = compileBatchedInsert<object>(a.sqlite, planDaysOfWeek);
      a.sqlite.transaction(() => {
        for (const r of rows) batched.add(r);
        batched.flush();
      })();
      const single = compileInsert<object>(b.sqlite, planDaysOfWeek);
      b.sqlite.transaction(() => {
        for (const r of rows) single(r);
      })();
      const read = (s: typeof a) =>
        s.sqlite.prepare("SELECT * FROM plan_days_of_week ORDER BY plan_id, day_number").all();
      expect(read(a)).toEqual(read(b));
      expect(read(a)).toHaveLength(count);
    } finally {
      void a.close();
      void b.close();
    }
  });

  it("keeps rows until a statement's worth is pending or flush, and then writes them", () => {
    const s = open();
    try {
      const w = compileBatchedInsert<object>(s.sqlite, planEnvironments, 4);
      const count = () => s.sqlite.prepare("SELECT count(*) FROM plan_environments").pluck().get();
      for (let i = 0; i < 3; i++) w.add({ planId: 1, environmentId: i, occurrences: 1 });
      expect(count()).toBe(0);
      w.add({ planId: 1, environmentId: 3, occurrences: 1 });
      expect(count()).toBe(4);
      w.add({ planId: 2, environmentId: 0, occurrences: 2 });
      w.flush();
      expect(count()).toBe(5);
    } finally {
      void s.close();
    }
  });

  it("writes a table with a secondary index row by row (a multi-row VALUES is slower there)", () => {
    const s = open();
    try {
      const w = compileBatchedInsert<object>(s.sqlite, planScenarios, 4);
      w.add({ planId: 1, scenarioId: 9001, position: 0 });
      expect(s.sqlite.prepare("SELECT count(*) FROM plan_scenarios").pluck().get()).toBe(1);
    } finally {
      void s.close();
    }
  });
});

describe("the SQLite plan writer", () => {
  it("writes a plan's pending child rows before it deletes them (a plan written twice in one transaction)", () => {
    const s = open();
    try {
      const at = "2026-11-27T00:00:00.000Z";
      const w = new PlanWriter(s.sqlite, {
        companyId: 5251,
        at,
        runId: 1,
        seenAt: null,
        touchedCompany: () => {},
      });
      s.sqlite.transaction(() => {
        w.insert(plan(1, [11, 12], [3, 5]), "{}", "h1");
        w.insert(plan(2, [21], [7]), "{}", "h2");
        // Rows of plan 1 are still pending here: they must not outlive its rewrite.
        w.renormalize(plan(1, [13], [4]));
        w.flush();
      })();
      const envs = s.sqlite
        .prepare("SELECT plan_id, environment_id FROM plan_environments ORDER BY plan_id, environment_id")
        .raw()
        .all();
      expect(envs).toEqual([
        [1, 4],
        [2, 7],
      ]);
      const days = s.sqlite.prepare("SELECT count(*) FROM plan_days_of_week WHERE plan_id = 1").pluck().get();
      expect(days).toBe(3);
    } finally {
      void s.close();
    }
  });
});

describe("compileInsert with text given as bytes", () => {
  it("stores UTF-8 bytes as the text they are, like the string, and refuses a column that is no text", () => {
    const store = open();
    try {
      const write = compileInsert<object>(store.sqlite, planDaysOfWeek, ["dayName"], "", ["dayName"]);
      const text = 'Çarşamba 🚀 \\ud800 "q"';
      write({ planId: 1, dayNumber: 1 }, Buffer.from(text));
      write({ planId: 1, dayNumber: 2 }, text);
      const rows = store.sqlite
        .prepare("SELECT day_number AS n, typeof(day_name) AS type, day_name AS name FROM plan_days_of_week")
        .all();
      expect(rows).toEqual([
        { n: 1, type: "text", name: text },
        { n: 2, type: "text", name: text },
      ]);
      expect(() => compileInsert(store.sqlite, planDaysOfWeek, [], "", ["dayNumber"])).toThrow(
        /plan_days_of_week has no text column dayNumber/,
      );
    } finally {
      void store.close();
    }
  });
});
