/** Sync runs, leases, alert states and migrations through the store port, on every store kind. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import { emptyCounts, type Lease } from "../../src/store/port-runs.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";
import type { SqliteStore } from "../../src/store/sqlite/index.js";
import { applyOps, COMPANY, insert, OTHER_COMPANY } from "../support/snapshots.js";
import { storeKinds } from "../support/stores.js";

const T0 = "2025-03-01T10:00:00.000Z";
const T1 = "2025-03-01T10:00:30.000Z";
const T2 = "2025-03-01T10:01:00.000Z";
const T3 = "2025-03-01T10:02:00.000Z";
const me = { host: "a", pid: 1 };
const you = { host: "b", pid: 2 };
const lease = (token: string, owner = me, expiresAt = T2): Lease => ({ token, owner, expiresAt });
const never = () => false;

describe.each(storeKinds())("runs on $name", (kind) => {
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

  it("lists open runs with their owner and abandons one only once", async () => {
    const a = await store.runs.start({ companyId: COMPANY, trigger: "t", startedAt: T0, owner: me });
    const b = await store.runs.start({ companyId: OTHER_COMPANY, trigger: "t", startedAt: T1, owner: you });
    await store.runs.heartbeat(a, T1);
    expect(await store.runs.open()).toEqual([
      { id: a, companyId: COMPANY, startedAt: T0, heartbeatAt: T1, owner: me },
      { id: b, companyId: OTHER_COMPANY, startedAt: T1, heartbeatAt: T1, owner: you },
    ]);
    expect(await store.runs.abandon(a, T2, "its process died")).toBe(true);
    expect(await store.runs.abandon(a, T3, "again")).toBe(false);
    await store.runs.finish(b, { status: "cancelled", counts: emptyCounts(), finishedAt: T2, error: "stop" });
    expect(await store.runs.open()).toEqual([]);
    expect(await kind.rows(store, "SELECT status, finished_at, error FROM sync_runs ORDER BY id")).toEqual([
      { status: "failed", finished_at: T2, error: "its process died" },
      { status: "cancelled", finished_at: T2, error: "stop" },
    ]);
  });

  it("grants a free lease, refuses a held one, and lets canTake or expiry hand it over", async () => {
    expect(await store.runs.acquireLease(COMPANY, lease("t1"), T0, never)).toEqual({ ok: true });
    expect(await store.runs.acquireLease(COMPANY, lease("t2", you), T1, never)).toEqual({
      ok: false,
      holder: lease("t1"),
    });
    const asked: Lease[] = [];
    const gone = (holder: Lease) => {
      asked.push(holder);
      return true;
    };
    expect(await store.runs.acquireLease(COMPANY, lease("t3", you, T3), T1, gone)).toEqual({ ok: true });
    expect(asked).toEqual([lease("t1")]);
    // The old holder's renewal and release no longer count.
    expect(await store.runs.renewLease(COMPANY, "t1", T3)).toBe(false);
    await store.runs.releaseLease(COMPANY, "t1");
    expect(await store.runs.acquireLease(COMPANY, lease("t4"), T2, never)).toMatchObject({ ok: false });
    // Past its expiry the lease is anyone's, without asking.
    expect(
      await store.runs.acquireLease(COMPANY, lease("t5", me, "2025-03-01T10:09:00.000Z"), T3, never),
    ).toEqual({
      ok: true,
    });
    expect(await store.runs.renewLease(COMPANY, "t5", "2025-03-01T10:10:00.000Z")).toBe(true);
    await store.runs.releaseLease(COMPANY, "t5");
    expect(await store.runs.acquireLease(COMPANY, lease("t6", you), T3, never)).toEqual({ ok: true });
  });

  it("gives a lease to exactly one of several takers at once", async () => {
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map((pid) =>
        store.runs.acquireLease(COMPANY, lease(`t${pid}`, { host: "h", pid }), T0, never),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
  });

  it("counts what each company's newest sync rejected (v_rejected_now), each distinct content once", async () => {
    // One row per content and episode: [first_run_id, last_run_id] are the runs that saw it.
    const reject = (entityId: number, firstRun: number, lastRun: number) =>
      kind.rows(
        store,
        `INSERT INTO rejected_records (company_id, entity, entity_id, content_hash, reason, first_run_id, last_run_id,
           first_seen_at, last_seen_at, seen_runs)
         VALUES (?, 'plan', ?, ?, 'bad', ?, ?, ?, ?, 1) RETURNING id`,
        COMPANY,
        entityId,
        `h${entityId}`,
        firstRun,
        lastRun,
        T0,
        T1,
      );
    const done = { status: "succeeded" as const, counts: emptyCounts(), finishedAt: T1, error: null };
    const first = await store.runs.start({ companyId: COMPANY, trigger: "t", startedAt: T0, owner: me });
    await store.runs.finish(first, done);
    const second = await store.runs.start({ companyId: COMPANY, trigger: "t", startedAt: T1, owner: me });
    await store.runs.finish(second, { ...done, status: "partial" });
    await reject(1, first, first); // gone from the list since
    await reject(2, first, second); // seen by both
    await reject(3, second, second); // new in the newest
    await kind.rows(
      store,
      // The runs' ends made the company's row (its last run): the rejections' run joins it.
      `INSERT INTO sync_state (company_id, rejections_run_id) VALUES (?, ?)
       ON CONFLICT (company_id) DO UPDATE SET rejections_run_id = excluded.rejections_run_id RETURNING company_id`,
      COMPANY,
      second,
    );
    const rejected = await store.runs.rejectedNow([COMPANY, OTHER_COMPANY, 999]);
    expect([...rejected.entries()].sort()).toEqual([
      [COMPANY, 2],
      [OTHER_COMPANY, 0],
      [999, 0],
    ]);
  });

  it("sets the alert state only when it is still the expected one", async () => {
    expect(await store.runs.setAlertState(COMPANY, "ok", "failing", T0)).toBe(false);
    expect(await store.runs.setAlertState(COMPANY, null, "ok", T0)).toBe(true);
    expect(await store.runs.setAlertState(COMPANY, null, "ok", T1)).toBe(false);
    expect(await store.runs.setAlertState(COMPANY, "ok", "failing", T1)).toBe(true);
    const racers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => store.runs.setAlertState(COMPANY, "failing", "ok", T2)),
    );
    expect(racers.filter(Boolean)).toHaveLength(1);
    const fresh = await Promise.all(
      [1, 2, 3].map(() => store.runs.setAlertState(OTHER_COMPANY, null, "stale", T2)),
    );
    expect(fresh.filter(Boolean)).toHaveLength(1);
    expect((await store.runs.companyStates([COMPANY, OTHER_COMPANY])).map((s) => s.alertState)).toEqual([
      "ok",
      "stale",
    ]);
  });

  it("tells each company's last finished run, last success, applied snapshot and alert state, in the order asked", async () => {
    await applyOps(store, T0, () => [insert(1, "one")]);
    const partial = await applyOps(store, T1, () => [], { status: "partial" });
    const running = await store.runs.start({ companyId: COMPANY, trigger: "t", startedAt: T2, owner: me });
    await store.runs.setAlertState(COMPANY, null, "failing", T2);
    const states = await store.runs.companyStates([999, COMPANY]);
    expect(states[0]).toEqual({
      companyId: 999,
      lastRun: null,
      lastSuccessAt: null,
      appliedStartedAt: null,
      alertState: null,
    });
    // The run still going says nothing yet: the last run is the partial one before it.
    expect(running).toBeGreaterThan(partial.runId);
    expect(states[1]).toEqual({
      companyId: COMPANY,
      lastRun: {
        id: partial.runId,
        status: "partial",
        startedAt: T1,
        finishedAt: T1,
        counts: emptyCounts(),
        error: null,
      },
      // A partial run counts for freshness, as it does for the applied snapshot.
      lastSuccessAt: T1,
      appliedStartedAt: T1,
      alertState: "failing",
    });
    expect(partial.result.applied).toBe(true);
  });

  it("keeps the last finished run and last success where runs end, in any order, as the run history says", async () => {
    // What the history itself says (the question companyStates answered by searching it).
    const fromHistory = async () => {
      const [last] = await kind.rows<{ id: number | null }>(
        store,
        "SELECT max(id) AS id FROM sync_runs WHERE company_id = ? AND status <> 'running'",
        COMPANY,
      );
      const [success] = await kind.rows<{ at: string | null }>(
        store,
        `SELECT started_at AS at FROM sync_runs WHERE company_id = ? AND status IN ('succeeded', 'partial')
           AND trigger <> 'replay' ORDER BY started_at DESC LIMIT 1`,
        COMPANY,
      );
      return { id: last?.id == null ? null : Number(last.id), at: success?.at ?? null };
    };
    const stored = async () => {
      const [s] = await store.runs.companyStates([COMPANY]);
      return { id: s?.lastRun?.id ?? null, at: s?.lastSuccessAt ?? null, status: s?.lastRun?.status ?? null };
    };
    const start = (startedAt: string, trigger = "schedule") =>
      store.runs.start({ companyId: COMPANY, trigger, startedAt, owner: me });
    const end = (status: "succeeded" | "partial" | "failed" | "superseded" | "cancelled") => ({
      status,
      counts: emptyCounts(),
      finishedAt: T3,
      error: status === "failed" ? "boom" : null,
    });
    const steps: [string, () => Promise<unknown>, { status: string | null; at: string | null }][] = [];
    const older = await start(T0);
    const newer = await start(T1);
    const replay = await start(T2, "replay");
    steps.push(
      ["nothing ended", async () => {}, { status: null, at: null }],
      [
        "the newer run succeeds",
        () => store.runs.finish(newer, end("succeeded")),
        { status: "succeeded", at: T1 },
      ],
      // Reaped after a newer run ended: it is not the last run, and its status is 'failed'.
      [
        "the older run is reaped",
        () => store.runs.abandon(older, T3, "died"),
        { status: "succeeded", at: T1 },
      ],
      // A replay is the last run, but not a success for freshness.
      [
        "a replay succeeds",
        () => store.runs.finish(replay, end("succeeded")),
        { status: "succeeded", at: T1 },
      ],
      [
        "a run is superseded",
        async () => store.runs.finish(await start(T3), end("superseded")),
        { status: "superseded", at: T1 },
      ],
      [
        "a run is cancelled",
        async () => store.runs.finish(await start(T3), end("cancelled")),
        { status: "cancelled", at: T1 },
      ],
      [
        "a running run is reaped",
        async () => store.runs.abandon(await start(T3), T3, "died"),
        { status: "failed", at: T1 },
      ],
      [
        "a partial run",
        async () => store.runs.finish(await start(T3), end("partial")),
        { status: "partial", at: T3 },
      ],
      [
        "a run fails",
        async () => store.runs.finish(await start(T3), end("failed")),
        { status: "failed", at: T3 },
      ],
      ["one starts", () => start(T3), { status: "failed", at: T3 }],
    );
    for (const [what, step, want] of steps) {
      await step();
      const h = await fromHistory();
      expect({ what, ...(await stored()) }).toEqual({ what, id: h.id, ...want });
      expect({ what, at: h.at }).toEqual({ what, at: want.at });
    }
    // The older run's end moved nothing back: the state names the newest finished run.
    expect((await stored()).id).toBeGreaterThan(replay);
  });

  it("fills each company's last finished run and last success from its history in the migration that adds them", async () => {
    const end = (status: "succeeded" | "failed" | "cancelled", error: string | null = null) => ({
      status,
      counts: emptyCounts(),
      finishedAt: T3,
      error,
    });
    const start = (companyId: number, startedAt: string, trigger = "schedule") =>
      store.runs.start({ companyId, trigger, startedAt, owner: me });
    await applyOps(store, T0, () => [insert(1, "one")]);
    await store.runs.finish(await start(COMPANY, T1), end("failed", "boom"));
    await store.runs.finish(await start(COMPANY, T2, "replay"), end("succeeded"));
    await start(COMPANY, T3); // still running
    await store.runs.finish(await start(OTHER_COMPANY, T1), end("cancelled"));
    const ids = [COMPANY, OTHER_COMPANY, 999];
    const want = await store.runs.companyStates(ids);
    expect(want.map((s) => [s.lastRun?.status ?? null, s.lastSuccessAt])).toEqual([
      ["succeeded", T0],
      ["cancelled", null],
      [null, null],
    ]);
    // The database as it was before the migration: state rows only for applied snapshots.
    const exec = async (sql: string) => {
      if (kind.name === "sqlite") (store as SqliteStore).sqlite.exec(sql);
      else await (store as PostgresStore).pool.query(sql);
    };
    await exec("UPDATE sync_state SET last_run_id = NULL, last_success_at = NULL");
    await exec("DELETE FROM sync_state WHERE applied_run_id IS NULL");
    expect((await store.runs.companyStates(ids)).map((s) => s.lastRun)).toEqual([null, null, null]);
    // Its statements after the new columns.
    const folder = join("migrations", kind.name);
    const file = readdirSync(folder).find((f) => f.endsWith("_last_run_in_sync_state.sql"));
    expect(file).toBeDefined();
    const statements = readFileSync(join(folder, file as string), "utf8").split("--> statement-breakpoint");
    for (const st of statements.filter((x) => !/^\s*ALTER TABLE/.test(x))) await exec(st);
    expect(await store.runs.companyStates(ids)).toEqual(want);
  });
});

describe.each(storeKinds())("migrations on $name", (kind) => {
  afterAll(async () => {
    await kind.cleanup();
  });

  it("lets five openers of a new database all succeed, and applies each migration once", async () => {
    const database = await kind.fresh();
    const stores = await Promise.all([1, 2, 3, 4, 5].map(() => kind.open(database)));
    try {
      const counts = await Promise.all(stores.map((s) => s.sql.migrationCount()));
      expect(new Set(counts).size).toBe(1);
      expect(counts[0]).toBeGreaterThan(0);
      const table = kind.name === "sqlite" ? "__drizzle_migrations" : "drizzle.__drizzle_migrations";
      const rows = await kind.rows<{ n: number; d: number }>(
        stores[0] as Store,
        `SELECT count(*) AS n, count(DISTINCT hash) AS d FROM ${table}`,
      );
      expect(rows).toEqual([{ n: counts[0], d: counts[0] }]);
      // Every store works on the one schema.
      for (const [i, s] of stores.entries()) await s.runs.setAlertState(1000 + i, null, "ok", T0);
      expect(await kind.rows(stores[4] as Store, "SELECT count(*) AS n FROM sync_state")).toEqual([{ n: 5 }]);
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
