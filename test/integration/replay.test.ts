/**
 * Replay on every store kind: the stored records made into rows again without the service,
 * idempotent (same rows, versions and sightings), admitting what the newest sync rejected once
 * it reads, and applying a discard_value contract to what is stored.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { normalizePlan } from "../../src/normalize/plan.js";
import { readPlan, readReport } from "../../src/normalize/read.js";
import type { SnapshotStore } from "../../src/store/port-snapshot.js";
import type { SchemaSettings } from "../../src/sync/company.js";
import { replayCompany } from "../../src/sync/replay.js";
import { storeKinds } from "../support/stores.js";
import {
  FIRST,
  type Harness,
  logger,
  PLAN_CHILD_TABLES,
  putPlan,
  simPlan,
  startHarness,
} from "./sync-harness.js";

// Every record a replay reads or normalizes is counted (the transaction must do neither).
vi.mock("../../src/normalize/read.js", async (importOriginal) => {
  const read = await importOriginal<typeof import("../../src/normalize/read.js")>();
  return { ...read, readPlan: vi.fn(read.readPlan), readReport: vi.fn(read.readReport) };
});
vi.mock("../../src/normalize/plan.js", async (importOriginal) => {
  const plan = await importOriginal<typeof import("../../src/normalize/plan.js")>();
  return { ...plan, normalizePlan: vi.fn(plan.normalizePlan) };
});
const recordsRead = () =>
  vi.mocked(readPlan).mock.calls.length +
  vi.mocked(readReport).mock.calls.length +
  vi.mocked(normalizePlan).mock.calls.length;

const T = (day: number) => `2025-05-0${day}T00:00:00.000Z`;
const settings = (plan: SchemaSettings["contract"]["plan"]): SchemaSettings => ({
  observe: true,
  valueCap: 50,
  contract: { plan, scheduled_report: "evolve" },
});

describe.each(storeKinds())("replay on $name", (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kind);
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  const replay = (day: number, schema = settings("evolve")) =>
    replayCompany({ store: h.store, logger, now: () => new Date(T(day)), schema }, FIRST);
  /** Every child row, by content (a replay writes them again: their row stamps move). */
  const childRows = async () => {
    const out: Record<string, unknown[]> = {};
    for (const t of PLAN_CHILD_TABLES) {
      const rows = await h.rows<Record<string, unknown>>(`SELECT * FROM ${t}`);
      out[t] = rows.map((r) => JSON.stringify(r)).sort();
    }
    return out;
  };
  const everything = async () => ({
    plans: await h.rows("SELECT * FROM plans ORDER BY id"),
    reports: await h.rows("SELECT * FROM scheduled_reports ORDER BY id"),
    versions: await h.rows(
      "SELECT id, valid_from, valid_to, raw_json FROM plan_versions ORDER BY version_id",
    ),
    children: await childRows(),
    apps: await h.rows("SELECT * FROM mobile_apps ORDER BY id"),
    observed: await h.store.schema.observed({ companyId: FIRST }),
  });

  it("rewrites the rows of every stored record from its text, and changes nothing else", async () => {
    await h.sync(FIRST, { at: T(1) });
    const before = await everything();
    // Rows made wrong by hand: a replay makes them from the stored text again.
    // (RETURNING: the harness's rows() reads the result on both stores.)
    await h.rows("UPDATE plans SET plan_name = 'broken' WHERE id = 1001 RETURNING id");
    await h.rows("DELETE FROM plan_scenarios WHERE plan_id = 1002 RETURNING plan_id");
    expect(before.apps.length).toBeGreaterThan(0);
    await h.rows("UPDATE mobile_apps SET display_name = 'broken', version_code = NULL RETURNING id");
    const r = await replay(2);
    expect(r).toMatchObject({
      status: "succeeded",
      counts: { unchanged: 8, inserted: 0, updated: 0, rejected: 0 },
    });
    expect(await everything()).toEqual(before);
    expect(await h.rows("SELECT trigger, status FROM sync_runs ORDER BY id")).toEqual([
      { trigger: "test", status: "succeeded" },
      { trigger: "replay", status: "succeeded" },
    ]);
    // A replay is no sync: freshness still counts the sync's start.
    const [state] = await h.store.runs.companyStates([FIRST]);
    expect(state?.lastSuccessAt).toBe(T(1));
  });

  it("reads and normalizes every record before its transaction: the transaction does neither", async () => {
    await h.sync(FIRST, { at: T(1) });
    const plan = await simPlan(h.sim, FIRST, 1004);
    await putPlan(h.sim, FIRST, 1004, { ...plan, nick: 5 });
    expect((await h.sync(FIRST, { at: T(2), schema: settings("freeze") })).counts.rejected).toBe(1);
    const snapshots = h.store.snapshots;
    const apply = snapshots.apply.bind(snapshots);
    const seen = { before: -1, during: -1 };
    snapshots.apply = (async (meta, ops, signal) => {
      seen.before = recordsRead();
      try {
        return await apply(meta, ops, signal);
      } finally {
        seen.during = recordsRead() - seen.before;
      }
    }) satisfies SnapshotStore["apply"];
    const from = recordsRead();
    try {
      // The stored records rewritten, the rejected one admitted.
      expect((await replay(3)).counts).toMatchObject({ unchanged: 8, updated: 1, rejected: 0 });
    } finally {
      snapshots.apply = apply;
    }
    expect(seen.before - from).toBeGreaterThanOrEqual(9);
    expect(seen.during).toBe(0);
    expect(JSON.parse(await h.scalar<string>("SELECT raw_json FROM plans WHERE id = 1004"))).toMatchObject({
      nick: 5,
    });
  });

  it("admits a record the newest sync rejected, once it reads (freeze, then evolve), with a new version", async () => {
    await h.sync(FIRST, { at: T(1) });
    const plan = await simPlan(h.sim, FIRST, 1004);
    await putPlan(h.sim, FIRST, 1004, { ...plan, nick: 5 });
    expect((await h.sync(FIRST, { at: T(2), schema: settings("freeze") })).counts.rejected).toBe(1);
    expect((await replay(3, settings("freeze"))).counts).toMatchObject({ updated: 0, rejected: 1 });
    const r = await replay(4);
    expect(r.counts).toMatchObject({ updated: 1, rejected: 0 });
    expect(JSON.parse(await h.scalar<string>("SELECT raw_json FROM plans WHERE id = 1004"))).toMatchObject({
      nick: 5,
    });
    expect(
      await h.rows("SELECT valid_from, valid_to FROM plan_versions WHERE id = 1004 ORDER BY version_id"),
    ).toEqual([
      { valid_from: T(1), valid_to: T(4) },
      { valid_from: T(4), valid_to: null },
    ]);
    // The next sync finds it unchanged: the service's content is the stored one now.
    expect((await h.sync(FIRST, { at: T(5) })).counts).toMatchObject({ unchanged: 8, updated: 0 });
  });

  it("starts observing a company of reports only from what it stores (a first replay with schema.observe on)", async () => {
    await h.close();
    h = await startHarness(kind, { plans: 0, reports: 2 });
    const off: SchemaSettings = { ...settings("evolve"), observe: false };
    expect((await h.sync(FIRST, { at: T(1), schema: off })).status).toBe("succeeded");
    expect(await h.store.schema.observed({ companyId: FIRST })).toEqual([]);
    expect((await replay(2)).status).toBe("succeeded");
    const report = (await h.store.schema.observed({ companyId: FIRST })).find(
      (p) => p.entity === "scheduled_report" && p.path === "",
    );
    expect(report?.present).toBe(2);
  });

  it("applies discard_value to what is stored: the JSON columns lose the paths outside the schema, raw_json keeps them", async () => {
    await h.sync(FIRST, { at: T(1) });
    const plan = await simPlan(h.sim, FIRST, 1002);
    await putPlan(h.sim, FIRST, 1002, { ...plan, alerts: [{ alert_type: "EMAIL", secret_flag: true }] });
    await h.sync(FIRST, { at: T(2) });
    const json = () => h.scalar<string>("SELECT json FROM plan_alerts WHERE plan_id = 1002");
    expect(JSON.parse(await json())).toHaveProperty("secret_flag", true);
    expect((await replay(3, settings("discard_value"))).status).toBe("succeeded");
    expect(JSON.parse(await json())).toEqual({ alert_type: "EMAIL" });
    expect(
      JSON.parse(await h.scalar<string>("SELECT raw_json FROM plans WHERE id = 1002")).alerts[0],
    ).toHaveProperty("secret_flag");
    // Back to evolve, a replay puts them back: switching contracts loses nothing.
    await replay(4);
    expect(JSON.parse(await json())).toHaveProperty("secret_flag", true);
  });
});
