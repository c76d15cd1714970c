/**
 * A plan list that keeps bad elements for weeks, as a real service does: one without a usable
 * id, one with an id that fails validation, one of 1 MB. A re-sync that finds nothing new must
 * still write nothing per plan, store each bad content once, and keep every sighting true.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { PLAN_CHILD_TABLES } from "../../src/tables/table-names.js";
import { storeKinds } from "../support/stores.js";
import { admin, FIRST, type Harness, putPlan, simPlan, startHarness } from "./sync-harness.js";

const T = (day: number) => `2025-04-${String(day).padStart(2, "0")}T00:00:00.000Z`;
const PLANS = 120;
const BARE = 990_001;
const INVALID = 990_002;
const HUGE = 990_003;

describe.each(storeKinds())("persistent bad elements on $name", (kind) => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(kind, { plans: PLANS, reports: 0 });
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());

  /** Rows changed by everything since the connection opened (SQLite: the store's own connection). */
  const changes = () => h.scalar<number>("SELECT total_changes()");
  /** The transaction that last wrote each row of every table a plan lives in (PostgreSQL). */
  const stamps = async () => {
    const out: Record<string, unknown[]> = {};
    for (const table of ["plans", ...PLAN_CHILD_TABLES, "plan_versions", "mobile_apps"])
      out[table] = await h.rows(`SELECT xmin::text AS x, ctid::text AS c FROM ${table} ORDER BY ctid`);
    return out;
  };
  const storageBytes = async () =>
    h.dialect === "sqlite"
      ? Number(await h.scalar("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"))
      : Number(await h.scalar("SELECT pg_total_relation_size('rejected_records')"));

  async function addBadElements(): Promise<void> {
    const ids = await h.rows<{ id: number }>("SELECT id FROM plans ORDER BY id LIMIT 1");
    const template = await simPlan(h.sim, FIRST, ids[0]?.id as number);
    await putPlan(h.sim, FIRST, BARE, JSON.stringify("just a string"));
    await putPlan(h.sim, FIRST, INVALID, { ...template, id: INVALID, enabled: "yes" });
    await putPlan(h.sim, FIRST, HUGE, {
      ...template,
      id: HUGE,
      plan_name: "x".repeat(1024 * 1024),
      scenarios: 7,
    });
  }

  it("cost a no-change re-sync no plan row and no bytes, and every sighting stays true", async () => {
    expect((await h.sync(FIRST, { at: T(1) })).status).toBe("succeeded");
    const live = Number(await h.scalar("SELECT count(*) FROM plans"));
    expect(live).toBe(PLANS);
    // The clean steady state, as the yardstick.
    const c0 = h.dialect === "sqlite" ? await changes() : 0;
    expect((await h.sync(FIRST, { at: T(2) })).counts.unchanged).toBe(PLANS);
    const clean = h.dialect === "sqlite" ? (await changes()) - c0 : 0;

    await addBadElements();
    const first = await h.sync(FIRST, { at: T(3) });
    expect(first.status).toBe("partial");
    expect(first.counts).toMatchObject({ fetched: PLANS + 3, unchanged: PLANS, rejected: 3, deleted: 0 });
    expect(first.deletionsHeldBack).toBe(0);

    // The steady state with the bad elements: a no-change re-sync.
    const before = h.dialect === "sqlite" ? await changes() : 0;
    const stampsBefore = h.dialect === "postgres" ? await stamps() : null;
    const again = await h.sync(FIRST, { at: T(4) });
    expect(again.counts).toMatchObject({
      unchanged: PLANS,
      rejected: 3,
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
    if (h.dialect === "sqlite") {
      // What the clean re-sync writes, plus the three rejections seen again and its one error row
      // (DELETIONS_HELD_BACK); writing a sighting into every plan row would add PLANS.
      expect((await changes()) - before).toBeLessThanOrEqual(clean + 4);
    } else {
      expect(await stamps()).toEqual(stampsBefore);
    }
    expect(await h.scalar("SELECT count(DISTINCT seen_at) FROM plans")).toBe(1);
    expect(await h.rows("SELECT DISTINCT last_seen_at FROM v_plans")).toEqual([{ last_seen_at: T(4) }]);

    // One row per bad content, with the runs that saw it.
    const runs = await h.rows<{ id: number }>("SELECT id FROM sync_runs ORDER BY id");
    const [r3, r4] = [runs[2]?.id, runs[3]?.id];
    expect(
      await h.rows(
        `SELECT entity_id, first_run_id, last_run_id, first_seen_at, last_seen_at, seen_runs
         FROM rejected_records ORDER BY entity_id IS NULL, entity_id`,
      ),
    ).toEqual([
      {
        entity_id: INVALID,
        first_run_id: r3,
        last_run_id: r4,
        first_seen_at: T(3),
        last_seen_at: T(4),
        seen_runs: 2,
      },
      {
        entity_id: HUGE,
        first_run_id: r3,
        last_run_id: r4,
        first_seen_at: T(3),
        last_seen_at: T(4),
        seen_runs: 2,
      },
      {
        entity_id: null,
        first_run_id: r3,
        last_run_id: r4,
        first_seen_at: T(3),
        last_seen_at: T(4),
        seen_runs: 2,
      },
    ]);
    expect(await h.scalar("SELECT count(*) FROM v_rejected_now")).toBe(3);

    // Seen again, the 1 MB element adds no bytes. (On SQLite its second sighting, just above,
    // moved its text once: seen_runs 1 is stored in no byte, 2 in one, so the row changed size.)
    const bytesBefore = await storageBytes();
    await h.sync(FIRST, { at: T(5) });
    await h.sync(FIRST, { at: T(6) });
    expect((await storageBytes()) - bytesBefore).toBeLessThan(256 * 1024);
    expect(await h.scalar("SELECT max(seen_runs) FROM rejected_records")).toBe(4);
    expect(await h.scalar("SELECT count(*) FROM rejected_records")).toBe(3);
  });

  it("hold deletions back while an element has no usable id, keeping the missing plan's last sighting", async () => {
    await h.sync(FIRST, { at: T(1) });
    await addBadElements();
    await h.sync(FIRST, { at: T(2) });
    const [gone] = await h.rows<{ id: number }>(
      "SELECT max(id) AS id FROM plans WHERE company_id = ?",
      FIRST,
    );
    const goneId = gone?.id as number;
    await admin(h.sim, "DELETE", `companies/${FIRST}/plans/${goneId}`);
    const held = await h.sync(FIRST, { at: T(3) });
    expect(held.deletionsHeldBack).toBe(1);
    expect(held.counts.deleted).toBe(0);
    expect(await h.scalar("SELECT last_seen_at FROM v_plans WHERE id = ?", goneId)).toBe(T(2));
    expect(await h.scalar("SELECT count(DISTINCT last_seen_at) FROM v_plans WHERE id <> ?", goneId)).toBe(1);
    expect(await h.scalar("SELECT max(last_seen_at) FROM v_plans")).toBe(T(3));
    // Still missing a run later: nothing more is written for it.
    await h.sync(FIRST, { at: T(4) });
    expect(await h.rows("SELECT plan_id, last_seen_at, missing_since FROM unlisted_plans")).toEqual([
      { plan_id: goneId, last_seen_at: T(2), missing_since: T(3) },
    ]);
    // The element without an id goes: the list is complete, the plan is deleted, last seen at T(2).
    await admin(h.sim, "DELETE", `companies/${FIRST}/plans/${BARE}`);
    const complete = await h.sync(FIRST, { at: T(5) });
    expect(complete.counts.deleted).toBe(1);
    expect(await h.rows("SELECT deleted_at, last_seen_at FROM v_plans WHERE id = ?", goneId)).toEqual([
      { deleted_at: T(5), last_seen_at: T(2) },
    ]);
    expect(await h.scalar("SELECT count(*) FROM unlisted_plans")).toBe(0);
    expect(await h.rows("SELECT DISTINCT last_seen_at FROM v_plans WHERE deleted_at IS NULL")).toEqual([
      { last_seen_at: T(5) },
    ]);
  });

  it("answer what is rejected now and what run N rejected, a content that comes back in a new row", async () => {
    await h.sync(FIRST, { at: T(1) });
    await addBadElements();
    const r2 = (await h.sync(FIRST, { at: T(2) })).runId as number;
    const r3 = (await h.sync(FIRST, { at: T(3) })).runId as number;
    await admin(h.sim, "DELETE", `companies/${FIRST}/plans/${BARE}`);
    const r4 = (await h.sync(FIRST, { at: T(4) })).runId as number;
    await putPlan(h.sim, FIRST, BARE, JSON.stringify("just a string"));
    const r5 = (await h.sync(FIRST, { at: T(5) })).runId as number;
    const rejectedBy = (run: number) =>
      h.rows(
        `SELECT r.entity_id, r.first_seen_at FROM sync_runs n
         JOIN rejected_records r ON r.company_id = n.company_id AND n.id BETWEEN r.first_run_id AND r.last_run_id
         WHERE n.id = ? AND n.trigger <> 'replay' AND n.status IN ('succeeded', 'partial')
         ORDER BY r.entity_id IS NULL, r.entity_id, r.first_seen_at`,
        run,
      );
    expect(await rejectedBy(r3)).toEqual([
      { entity_id: INVALID, first_seen_at: T(2) },
      { entity_id: HUGE, first_seen_at: T(2) },
      { entity_id: null, first_seen_at: T(2) },
    ]);
    expect(await rejectedBy(r4)).toEqual([
      { entity_id: INVALID, first_seen_at: T(2) },
      { entity_id: HUGE, first_seen_at: T(2) },
    ]);
    // Back after a run without it: a new episode, rejected now since T(5).
    expect(await rejectedBy(r5)).toEqual([
      { entity_id: INVALID, first_seen_at: T(2) },
      { entity_id: HUGE, first_seen_at: T(2) },
      { entity_id: null, first_seen_at: T(5) },
    ]);
    expect(
      await h.rows(
        "SELECT entity_id, first_seen_at, seen_runs FROM v_rejected_now ORDER BY entity_id IS NULL, entity_id",
      ),
    ).toEqual([
      { entity_id: INVALID, first_seen_at: T(2), seen_runs: 4 },
      { entity_id: HUGE, first_seen_at: T(2), seen_runs: 4 },
      { entity_id: null, first_seen_at: T(5), seen_runs: 1 },
    ]);
    expect(await h.scalar("SELECT count(*) FROM rejected_records WHERE entity_id IS NULL")).toBe(2);
    expect(r2).toBeLessThan(r3);
  });
});
