/** Applying snapshots through the store port, on every store kind: the same rows either way. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import type { SnapshotOp } from "../../src/store/port-snapshot.js";
import { BATCH_SIZE } from "../../src/store/postgres/snapshot/writer.js";
import {
  applyOps,
  COMPANY,
  hashOf,
  insert,
  OTHER_COMPANY,
  raw,
  report,
  update,
} from "../support/snapshots.js";
import { storeKinds } from "../support/stores.js";

const T1 = "2025-03-01T10:00:00.000Z";
const T2 = "2025-03-02T10:00:00.125Z";
const T3 = "2025-03-03T10:00:00.000Z";

describe.each(storeKinds())("snapshots on $name", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh());
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    await kind.cleanup();
  });
  const q = <T = Record<string, unknown>>(sql: string, ...params: unknown[]) =>
    kind.rows<T>(store, sql, ...params);

  it("inserts plans with their children, shared mobile apps and a first version", async () => {
    const { result } = await applyOps(store, T1, () => [insert(1, "one"), insert(2, "two")]);
    expect(result).toMatchObject({ applied: true, end: { status: "succeeded", finishedAt: T1 } });
    if (result.applied) expect(result.writeMs).toBeGreaterThan(0);
    expect(
      await q(
        "SELECT id, company_id, project_id, plan_name, enabled, group_plan, period_start_at, first_seen_at, seen_at, deleted_at, raw_json FROM plans ORDER BY id",
      ),
    ).toEqual([
      {
        id: 1,
        company_id: COMPANY,
        project_id: 3_000_000_001,
        plan_name: "one",
        enabled: 1,
        group_plan: 0,
        period_start_at: "2025-01-01T08:30:00.250Z",
        first_seen_at: T1,
        seen_at: T1,
        deleted_at: null,
        raw_json: raw(1, "one"),
      },
      {
        id: 2,
        company_id: COMPANY,
        project_id: 3_000_000_002,
        plan_name: "two",
        enabled: 1,
        group_plan: 0,
        period_start_at: "2025-01-01T08:30:00.250Z",
        first_seen_at: T1,
        seen_at: T1,
        deleted_at: null,
        raw_json: raw(2, "two"),
      },
    ]);
    expect(await q("SELECT plan_id, day_name FROM plan_days_of_week ORDER BY plan_id, day_number")).toEqual([
      { plan_id: 1, day_name: "MONDAY" },
      { plan_id: 1, day_name: "TUESDAY" },
      { plan_id: 2, day_name: "MONDAY" },
      { plan_id: 2, day_name: "TUESDAY" },
    ]);
    expect(await q("SELECT scenario_id FROM plan_scenarios WHERE plan_id = 2 ORDER BY position")).toEqual([
      { scenario_id: 9_000_000_001 },
      { scenario_id: 9_000_000_002 },
    ]);
    expect(await q("SELECT id, created_at FROM mobile_apps")).toEqual([
      { id: 77, created_at: "2024-05-06T07:08:09.000Z" },
    ]);
    expect(await q("SELECT count(*) AS n FROM plan_mobile_apps")).toEqual([{ n: 2 }]);
    // The current version's text is the row's: stored once.
    expect(
      await q("SELECT id, valid_from, valid_to, content_hash, raw_json FROM plan_versions ORDER BY id"),
    ).toEqual([
      { id: 1, valid_from: T1, valid_to: null, content_hash: hashOf(1, "one"), raw_json: null },
      { id: 2, valid_from: T1, valid_to: null, content_hash: hashOf(2, "two"), raw_json: null },
    ]);
    expect(await q("SELECT id, raw_json FROM v_plan_versions ORDER BY id")).toEqual([
      { id: 1, raw_json: raw(1, "one") },
      { id: 2, raw_json: raw(2, "two") },
    ]);
    expect(await q("SELECT plan_id, day_names FROM v_plan_schedule ORDER BY plan_id")).toEqual([
      { plan_id: 1, day_names: "MONDAY,TUESDAY" },
      { plan_id: 2, day_names: "MONDAY,TUESDAY" },
    ]);
  });

  it("reads an index of what it holds, live and deleted, with the company's write generation", async () => {
    const first = await applyOps(store, T1, () => [insert(1, "one"), insert(2, "two")], { reportIds: [] });
    expect(first.index.generation).toBe(0);
    await applyOps(
      store,
      T2,
      () => [
        { op: "plan.delete", id: 2 },
        { op: "report.write", report: report(50, [1]), rawJson: "{}", hash: "r1", known: false },
      ],
      {
        reportIds: [50],
      },
    );
    const { index } = await applyOps(store, T3, () => [], { reportIds: [50, 51] });
    expect(index.generation).toBe(2);
    const known = index.plans.known;
    expect(known.idOfHash(hashOf(1, "one"))).toBe(1);
    expect(known.idOfHash(hashOf(2, "two"))).toBe(2);
    expect(known.idOfHash(hashOf(3, "three"))).toBeUndefined();
    expect([...known]).toEqual([
      [1, { hash: hashOf(1, "one"), deleted: false }],
      [2, { hash: hashOf(2, "two"), deleted: true }],
    ]);
    expect(index?.reports).toEqual(new Map([[50, { hash: "r1", deleted: false }]]));
  });

  it("updates, deletes and revives, versioning each content once, its text stored once", async () => {
    await applyOps(store, T1, () => [insert(1, "one"), insert(2, "two"), insert(3, "three")]);
    await applyOps(store, T2, () => [update(1, "uno"), { op: "plan.delete", id: 3 }]);
    // Plan 2 wrote nothing: the complete list at T2 vouches for it (v_plans.last_seen_at).
    expect(
      await q(
        "SELECT id, plan_name, first_seen_at, seen_at, deleted_at, last_seen_at FROM v_plans ORDER BY id",
      ),
    ).toEqual([
      { id: 1, plan_name: "uno", first_seen_at: T1, seen_at: T2, deleted_at: null, last_seen_at: T2 },
      { id: 2, plan_name: "two", first_seen_at: T1, seen_at: T1, deleted_at: null, last_seen_at: T2 },
      { id: 3, plan_name: "three", first_seen_at: T1, seen_at: T1, deleted_at: T2, last_seen_at: T1 },
    ]);
    // The update replaced the children, it did not add to them.
    expect(await q("SELECT count(*) AS n FROM plan_days_of_week WHERE plan_id = 1")).toEqual([{ n: 2 }]);
    await applyOps(store, T3, () => [{ op: "plan.revive", id: 3, hash: hashOf(3, "three") }]);
    expect(
      await q("SELECT id, valid_from, valid_to, raw_json FROM plan_versions ORDER BY id, version_id"),
    ).toEqual([
      // Replaced content: its text moved into its version.
      { id: 1, valid_from: T1, valid_to: T2, raw_json: raw(1, "one") },
      { id: 1, valid_from: T2, valid_to: null, raw_json: null },
      { id: 2, valid_from: T1, valid_to: null, raw_json: null },
      { id: 3, valid_from: T1, valid_to: T2, raw_json: null },
      { id: 3, valid_from: T3, valid_to: null, raw_json: null },
    ]);
    expect(await q("SELECT id, raw_json FROM v_plan_versions ORDER BY id, version_id")).toEqual([
      { id: 1, raw_json: raw(1, "one") },
      { id: 1, raw_json: raw(1, "uno") },
      { id: 2, raw_json: raw(2, "two") },
      { id: 3, raw_json: raw(3, "three") },
      { id: 3, raw_json: raw(3, "three") },
    ]);
    expect(await q("SELECT id, last_seen_at, deleted_at FROM v_plans ORDER BY id")).toEqual([
      { id: 1, last_seen_at: T3, deleted_at: null },
      { id: 2, last_seen_at: T3, deleted_at: null },
      { id: 3, last_seen_at: T3, deleted_at: null },
    ]);
    // A revived plan that then changes: both versions of its old content get the old text.
    const T4 = "2025-03-04T10:00:00.000Z";
    await applyOps(store, T4, () => [update(3, "drei")]);
    expect(
      await q("SELECT valid_from, valid_to, raw_json FROM plan_versions WHERE id = 3 ORDER BY version_id"),
    ).toEqual([
      { valid_from: T1, valid_to: T2, raw_json: raw(3, "three") },
      { valid_from: T3, valid_to: T4, raw_json: raw(3, "three") },
      { valid_from: T4, valid_to: null, raw_json: null },
    ]);
  });

  it("a list that lacks a plan keeps that plan's last sighting aside and writes no other row", async () => {
    await applyOps(store, T1, () => [insert(1, "one"), insert(2, "two")]);
    // Deletions held back, plan 2 missing: the list vouches for plan 1 without writing its row.
    await applyOps(store, T2, () => [{ op: "plan.unlisted", id: 2 }], { listed: false });
    expect(await q("SELECT id, seen_at, last_seen_at FROM v_plans ORDER BY id")).toEqual([
      { id: 1, seen_at: T1, last_seen_at: T2 },
      { id: 2, seen_at: T1, last_seen_at: T1 },
    ]);
    expect(await q("SELECT plan_id, last_seen_at, missing_since FROM unlisted_plans")).toEqual([
      { plan_id: 2, last_seen_at: T1, missing_since: T2 },
    ]);
    // Deleted later: last seen in the last list that held it (T1), not at T3.
    await applyOps(store, T3, () => [{ op: "plan.delete", id: 2 }]);
    expect(await q("SELECT id, deleted_at, last_seen_at FROM v_plans ORDER BY id")).toEqual([
      { id: 1, deleted_at: null, last_seen_at: T3 },
      { id: 2, deleted_at: T3, last_seen_at: T1 },
    ]);
    expect(await q("SELECT count(*) AS n FROM unlisted_plans")).toEqual([{ n: 0 }]);
  });

  it("an unlisted plan listed again is seen with its list", async () => {
    await applyOps(store, T1, () => [insert(1, "one"), insert(2, "two")]);
    await applyOps(store, T2, () => [{ op: "plan.unlisted", id: 2 }], { listed: false });
    await applyOps(store, T3, () => [{ op: "plan.listed", id: 2 }], { listed: false });
    expect(await q("SELECT id, seen_at, last_seen_at FROM v_plans ORDER BY id")).toEqual([
      { id: 1, seen_at: T1, last_seen_at: T3 },
      { id: 2, seen_at: T1, last_seen_at: T3 },
    ]);
  });

  it("writes nothing when the company's data changed after its index was read (stale)", async () => {
    await applyOps(store, T1, () => [insert(1, "one")]);
    const stale = await applyOps(store, T3, () => [update(1, "mine")], {
      meanwhile: () => applyOps(store, T2, () => [update(1, "theirs")]),
    });
    expect(stale.result).toEqual({ applied: false, reason: "stale" });
    expect(stale.ran).toBe(false);
    expect(await q("SELECT plan_name FROM plans")).toEqual([{ plan_name: "theirs" }]);
    // A plan taken over by another company makes that company's index stale too.
    const other = await applyOps(store, "2025-03-05T00:00:00.000Z", () => [{ op: "plan.delete", id: 1 }], {
      meanwhile: () =>
        applyOps(store, "2025-03-04T00:00:00.000Z", () => [insert(1, "moved", OTHER_COMPANY)], {
          companyId: OTHER_COMPANY,
        }),
    });
    expect(other.result).toEqual({ applied: false, reason: "stale" });
    expect(await q("SELECT company_id, deleted_at FROM plans")).toEqual([
      { company_id: OTHER_COMPANY, deleted_at: null },
    ]);
  });

  it("writes reports with their children, text kept as the service gave it", async () => {
    await applyOps(store, T1, () => [insert(1, "one")]);
    await applyOps(
      store,
      T2,
      () => [
        { op: "report.write", report: report(50, [1, 99]), rawJson: '{"id":50}', hash: "r1", known: false },
      ],
      { reportIds: [50] },
    );
    expect(await q("SELECT id, report_hour, first_seen_at FROM scheduled_reports")).toEqual([
      { id: 50, report_hour: "not a time", first_seen_at: T2 },
    ]);
    expect(await q("SELECT plan_id, dangling FROM v_report_plan_coverage ORDER BY plan_id")).toEqual([
      { plan_id: 1, dangling: 0 },
      { plan_id: 99, dangling: 1 },
    ]);
    await applyOps(store, T3, () => [{ op: "report.delete", id: 50 }], { reportIds: [50] });
    expect(await q("SELECT deleted_at FROM scheduled_reports")).toEqual([{ deleted_at: T3 }]);
    expect(await q("SELECT valid_from, valid_to FROM report_versions")).toEqual([
      { valid_from: T2, valid_to: T3 },
    ]);
  });

  it("discards a snapshot older than the one applied: nothing written, the newer run named", async () => {
    const newer = await applyOps(store, T2, () => [insert(1, "new")]);
    const older = await applyOps(store, T1, () => [insert(1, "old"), insert(2, "old")]);
    expect(older.ran).toBe(false);
    expect(older.result).toEqual({
      applied: false,
      reason: "superseded",
      newerStartedAt: T2,
      newerRunId: newer.runId,
    });
    expect(await q("SELECT id, plan_name FROM plans")).toEqual([{ id: 1, plan_name: "new" }]);
    const [state] = await store.runs.companyStates([COMPANY]);
    expect(state?.appliedStartedAt).toBe(T2);
    // The same time again is not newer either.
    expect((await applyOps(store, T2, () => [])).result.applied).toBe(false);
  });

  it("never ends a version before it began, when a plan moves from a company synced later", async () => {
    await applyOps(store, T3, () => [insert(1, "theirs", OTHER_COMPANY)], { companyId: OTHER_COMPANY });
    await applyOps(store, T2, () => [insert(1, "ours")]);
    expect(await q("SELECT company_id, plan_name, first_seen_at FROM plans")).toEqual([
      { company_id: COMPANY, plan_name: "ours", first_seen_at: T3 },
    ]);
    const versions = await q<{ valid_from: string; valid_to: string | null }>(
      "SELECT valid_from, valid_to FROM plan_versions ORDER BY version_id",
    );
    expect(versions).toEqual([
      { valid_from: T3, valid_to: T3 },
      { valid_from: T2, valid_to: null },
    ]);
    for (const v of versions) if (v.valid_to !== null) expect(v.valid_to >= v.valid_from).toBe(true);
  });

  it("writes a snapshot larger than a batch, rejects and errors in between, in one piece", async () => {
    // Two PostgreSQL batches and a part (SQLite has none: the same rows either way).
    const plans = BATCH_SIZE * 2 + 234;
    const ops = function* (): Generator<SnapshotOp> {
      for (let id = 1; id <= plans; id++) {
        yield insert(id, `p${id}`);
        if (id % 100 === 0)
          yield {
            op: "reject",
            entity: "plan",
            entityId: null,
            reason: `bad ${id}`,
            rawJson: "{",
            hash: "h",
          };
      }
      yield { op: "error", entity: "plans", entityId: null, code: "X", httpStatus: 500, message: "late" };
    };
    const { runId } = await applyOps(store, T1, ops);
    expect(await q("SELECT count(*) AS n, count(DISTINCT content_hash) AS h FROM plans")).toEqual([
      { n: plans, h: plans },
    ]);
    expect(await q("SELECT count(*) AS n FROM plan_scenarios")).toEqual([{ n: plans * 2 }]);
    expect(await q("SELECT count(*) AS n FROM plan_versions WHERE valid_to IS NULL")).toEqual([{ n: plans }]);
    const rejects = await q<{ reason: string }>(
      "SELECT reason FROM rejected_records WHERE first_run_id = ? ORDER BY id",
      runId,
    );
    expect(rejects.map((r) => r.reason)).toEqual(
      Array.from({ length: Math.floor(plans / 100) }, (_, i) => `bad ${(i + 1) * 100}`),
    );
    expect(await q("SELECT code, http_status FROM sync_errors WHERE run_id = ?", runId)).toEqual([
      { code: "X", http_status: 500 },
    ]);
    expect(await q("SELECT status, finished_at FROM sync_runs WHERE id = ?", runId)).toEqual([
      { status: "succeeded", finished_at: T1 },
    ]);
  });

  it("writes nothing of a snapshot whose plan throws, and leaves the run to its caller", async () => {
    const boom = function* (): Generator<SnapshotOp> {
      yield insert(1, "one");
      throw new Error("bug in the plan");
    };
    await expect(applyOps(store, T1, boom)).rejects.toThrow("bug in the plan");
    expect(await q("SELECT count(*) AS n FROM plans")).toEqual([{ n: 0 }]);
    // The run is still the caller's to end: running, and no finished run for the company yet.
    expect(await q("SELECT status FROM sync_runs")).toEqual([{ status: "running" }]);
    const [state] = await store.runs.companyStates([COMPANY]);
    expect(state).toMatchObject({ appliedStartedAt: null, lastRun: null });
  });
});
