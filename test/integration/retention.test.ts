/**
 * Retention on both stores: what a prune removes, what it keeps whatever its age, and that a
 * dry run counts the same without removing anything.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { prune, type Retention } from "../../src/retention/prune.js";
import type { Store } from "../../src/store/port.js";
import { type Sql, sqlOn, storeKinds } from "../support/stores.js";

const NOW = new Date("2026-06-01T00:00:00.000Z");
const OLD = "2026-01-01T00:00:00.000Z"; // 151 days before NOW
const OLDER = "2025-12-01T00:00:00.000Z";
const RECENT = "2026-05-25T00:00:00.000Z";
const A = 71;
const B = 72;

function retention(over: Record<string, string> = {}): Retention {
  const cfg = configSchema({}).parse({
    baseUrl: "http://127.0.0.1:1",
    auth: { token: "t" },
    companies: [{ id: A }],
    retention: over,
  });
  return cfg.retention;
}

describe.each(storeKinds())("prune on $name", (kind) => {
  let store: Store;
  let sql: Sql;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh({ migrated: true }));
    sql = sqlOn(kind, store);
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    await kind.cleanup();
  });

  const run = async (
    company: number,
    startedAt: string,
    opts: { status?: string; inserted?: number; trigger?: string } = {},
  ): Promise<number> =>
    sql.scalar<number>(
      `INSERT INTO sync_runs (company_id, trigger, started_at, finished_at, status, inserted)
       VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
      company,
      opts.trigger ?? "schedule",
      startedAt,
      opts.status === "running" ? null : startedAt,
      opts.status ?? "succeeded",
      opts.inserted ?? 0,
    );
  const error = (runId: number) =>
    sql.scalar(
      "INSERT INTO sync_errors (run_id, entity, code, message) VALUES (?, 'plans', 'TIMEOUT', 'slow') RETURNING id",
      runId,
    );
  const rejected = (runId: number) =>
    sql.scalar(
      `INSERT INTO rejected_records (company_id, entity, entity_id, content_hash, reason, first_run_id, last_run_id,
         first_seen_at, last_seen_at, seen_runs, raw_json)
       SELECT company_id, 'plan', NULL, 'h' || id, 'bad', id, id, started_at, started_at, 1, '"x"'
       FROM sync_runs WHERE id = ? RETURNING id`,
      runId,
    );
  const ids = async (table: string) =>
    (await sql.rows<{ id: number }>(`SELECT id FROM ${table} ORDER BY id`)).map((r) => Number(r.id));

  it("removes old runs and their errors, and keeps every run something still needs", async () => {
    const gone1 = await run(A, OLDER);
    const gone2 = await run(A, OLD, { status: "failed" });
    const changed = await run(A, OLD, { inserted: 3 }); // plan versions name it
    const running = await run(A, OLDER, { status: "running" });
    const applied = await run(A, OLD);
    const newestSuccessA = await run(A, OLD);
    const lastA = await run(A, RECENT, { status: "failed" });
    const onlyB = await run(B, OLDER); // B's newest run, however old
    const schemaRun = await run(B, OLD, { status: "failed" });
    await sql.rows(
      "INSERT INTO schema_changes (company_id, run_id, detected_at, entity, path, kind) VALUES (?, ?, ?, 'plan', 'x', 'added') RETURNING id",
      B,
      schemaRun,
      OLD,
    );
    // An older applied snapshot than the newest success: a replay applied it, say.
    await sql.rows(
      "INSERT INTO sync_state (company_id, applied_run_id, applied_started_at) VALUES (?, ?, ?) RETURNING company_id",
      A,
      applied,
      OLD,
    );
    for (const r of [gone1, gone2, changed, applied, lastA]) await error(r);

    const report = await prune(store, retention(), { now: NOW });

    expect(await ids("sync_runs")).toEqual(
      [changed, running, applied, newestSuccessA, lastA, onlyB, schemaRun].sort((x, y) => x - y),
    );
    // The errors of a run kept for its versions go; those of kept runs stay.
    expect(
      (await sql.rows<{ run_id: number }>("SELECT run_id FROM sync_errors ORDER BY run_id")).map((r) =>
        Number(r.run_id),
      ),
    ).toEqual([applied, lastA]);
    expect(report.removed).toMatchObject({ sync_runs: 2, sync_errors: 3, rejected_records: 0 });
    expect(report.dryRun).toBe(false);
  });

  it("keeps the last finished run that status shows, also behind a run still going", async () => {
    const me = { host: "h", pid: 1 };
    const finished = await store.runs.start({
      companyId: A,
      trigger: "schedule",
      startedAt: OLDER,
      owner: me,
    });
    await store.runs.finish(finished, {
      status: "failed",
      counts: { fetched: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, rejected: 0 },
      finishedAt: OLDER,
      error: "boom",
    });
    const older = await run(A, OLDER, { status: "failed" }); // before it: goes
    expect(older).toBeLessThan(
      Number(await store.runs.start({ companyId: A, trigger: "schedule", startedAt: OLD, owner: me })),
    );

    await prune(store, retention(), { now: NOW });

    // The newest run is the one going; the newest finished one stays, and the state names it.
    expect(await ids("sync_runs")).not.toContain(older);
    expect(await ids("sync_runs")).toContain(finished);
    const [state] = await store.runs.companyStates([A]);
    expect(state?.lastRun).toMatchObject({ id: finished, status: "failed", error: "boom" });
  });

  it("counts the same in a dry run and removes nothing", async () => {
    for (let i = 0; i < 7; i++) await error(await run(A, OLD));
    await rejected(await run(A, OLDER));
    await run(A, RECENT);
    const before = await sql.scalar<number>("SELECT count(*) FROM sync_runs");
    const dry = await prune(store, retention(), { now: NOW, dryRun: true, limit: 3 });
    expect(Number(await sql.scalar("SELECT count(*) FROM sync_runs"))).toBe(Number(before));
    expect(Number(await sql.scalar("SELECT count(*) FROM rejected_records"))).toBe(1);
    const real = await prune(store, retention(), { now: NOW, limit: 3 });
    expect(dry.removed).toEqual(real.removed);
    expect(real.removed).toMatchObject({ sync_runs: 8, sync_errors: 7, rejected_records: 1 });
    expect(await ids("sync_runs")).toHaveLength(1);
  });

  it("keeps the rejected records of kept runs, and runs whose rejected records stay", async () => {
    const oldRejecting = await run(A, OLDER);
    await rejected(oldRejecting);
    const newest = await run(A, OLD);
    await rejected(newest);
    // Rejected records kept for ever: their runs stay too.
    await prune(store, retention({ rejected: "never" }), { now: NOW });
    expect(await ids("sync_runs")).toEqual([oldRejecting, newest]);
    const report = await prune(store, retention(), { now: NOW });
    expect(report.removed).toMatchObject({ rejected_records: 1, sync_runs: 1 });
    expect(
      (await sql.rows<{ run_id: number }>("SELECT last_run_id AS run_id FROM rejected_records")).map((r) =>
        Number(r.run_id),
      ),
    ).toEqual([newest]);
    expect(await ids("sync_runs")).toEqual([newest]);
  });

  it("goes on in small batches until a table is done", async () => {
    // Ids below 1 too (rows copied in from elsewhere, bench:age's history): a pass starts below them.
    for (const id of [-7, 0])
      await sql.rows(
        "INSERT INTO sync_runs (id, company_id, trigger, started_at, finished_at, status) VALUES (?, ?, 's', ?, ?, 'succeeded') RETURNING id",
        id,
        A,
        OLDER,
        OLDER,
      );
    for (let i = 0; i < 58; i++) await run(i % 2 ? A : B, OLD);
    await run(A, RECENT);
    await run(B, RECENT);
    const report = await prune(store, retention(), { now: NOW, limit: 5, targetMs: 1000 });
    expect(report.removed.sync_runs).toBe(60);
    expect(report.batches).toBeGreaterThan(3);
    expect(await ids("sync_runs")).toHaveLength(2);
  });

  it("prunes settled push rows and seed rejections only when asked, and keeps a parent that a waiting row needs", async () => {
    const row = (key: string, status: string, updatedAt: string, parentKey: string | null = null) =>
      sql.rows(
        `INSERT INTO scenario_requests (key, company_id, project_id, scenario_name, payload_json, parent_key, status, created_at, updated_at)
         VALUES (?, ?, 1, ?, '{}', ?, ?, ?, ?) RETURNING key`,
        key,
        A,
        key,
        parentKey,
        status,
        updatedAt,
        updatedAt,
      );
    await row("old-created", "created", OLD);
    await row("old-failed", "failed", OLDER);
    await row("old-pending", "pending", OLD);
    await row("recent-created", "created", RECENT);
    await row("parent", "created", OLD);
    await row("child", "blocked", OLD, "parent");
    await row("parent2", "exists", OLD);
    await row("child2", "created", OLD, "parent2"); // both go
    await sql.rows(
      "INSERT INTO seed_rejections (batch_id, source_file, line, reason, recorded_at) VALUES ('b', 'f', 1, 'r', ?), ('b', 'f', 2, 'r', ?) RETURNING id",
      OLD,
      RECENT,
    );
    const keys = async () =>
      (await sql.rows<{ key: string }>("SELECT key FROM scenario_requests ORDER BY key")).map((r) => r.key);
    const all = await keys();
    await prune(store, retention(), { now: NOW });
    expect(await keys()).toEqual(all);
    const report = await prune(store, retention({ pushes: "30d" }), { now: NOW, limit: 2 });
    expect(await keys()).toEqual(["child", "old-pending", "parent", "recent-created"]);
    expect(report.removed).toMatchObject({ scenario_requests: 4, seed_rejections: 1 });
    expect(Number(await sql.scalar("SELECT count(*) FROM seed_rejections"))).toBe(1);
  });

  it("prunes acknowledged schema changes only, when asked", async () => {
    const r = await run(A, RECENT);
    const change = (at: string, ack: string | null) =>
      sql.rows(
        "INSERT INTO schema_changes (company_id, run_id, detected_at, entity, path, kind, acknowledged_at) VALUES (?, ?, ?, 'plan', 'x', 'added', ?) RETURNING id",
        A,
        r,
        at,
        ack,
      );
    await change(OLD, OLD);
    await change(OLD, null);
    await change(RECENT, RECENT);
    expect((await prune(store, retention(), { now: NOW })).removed.schema_changes).toBe(0);
    const report = await prune(store, retention({ schemaChanges: "30d" }), { now: NOW });
    expect(report.removed.schema_changes).toBe(1);
    expect(Number(await sql.scalar("SELECT count(*) FROM schema_changes"))).toBe(2);
  });
});
