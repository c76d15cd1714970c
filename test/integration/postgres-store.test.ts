/**
 * What only the PostgreSQL store does: its type mapping, its advisory lock around an apply, an
 * abort that rolls a snapshot back mid-write, group commit that fails one write alone, and a
 * query cursor that lets go of the database when its reader stops.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseTarget } from "../../src/config/index.js";
import { StoreError } from "../../src/store/errors.js";
import { QueryReadOnlyError } from "../../src/store/port.js";
import type { SnapshotOp } from "../../src/store/port-snapshot.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { isoFromPg } from "../../src/store/postgres/pool.js";
import { BATCH_SIZE } from "../../src/store/postgres/snapshot/writer.js";
import { PG_URL, TestDatabases, truncateAll } from "../support/postgres.js";
import { applyOps, COMPANY, insert, plan } from "../support/snapshots.js";

const T1 = "2025-03-01T10:00:00.000Z";
const T2 = "2025-03-02T10:00:00.000Z";

const databases = new TestDatabases();
let url: string;
let store: PostgresStore;
/** A second connection to the same database, outside the store. */
let other: pg.Client;

async function open(): Promise<PostgresStore> {
  const target = databaseTarget(url);
  if (target.dialect !== "postgres") throw new Error("not postgres");
  return openPostgresStore(target);
}

beforeAll(async () => {
  url = await databases.create();
});
afterAll(async () => {
  await databases.dropAll();
});
beforeEach(async () => {
  store = await open();
  await truncateAll(store.pool);
  other = new pg.Client({ connectionString: url });
  await other.connect();
});
afterEach(async () => {
  await other.end();
  await store.close();
});

describe("the type mapping", () => {
  it.each([
    ["2026-11-22 19:53:43.123+00", "2026-11-22T19:53:43.123Z"],
    ["2026-11-22 19:53:43+00", "2026-11-22T19:53:43.000Z"],
    ["2026-11-22 19:53:43.1+00", "2026-11-22T19:53:43.100Z"],
    ["2026-11-22 19:53:43.123456+00", "2026-11-22T19:53:43.123Z"],
    ["0001-01-01 00:00:00+00 BC", "0000-01-01T00:00:00.000Z"],
    ["infinity", "infinity"],
  ])("reads timestamptz %s as %s", (text, iso) => {
    expect(isoFromPg(text)).toBe(iso);
  });

  it("gives back timestamps as SQLite holds them, year 0000 included, and ids above 2^31 as numbers", async () => {
    const n = plan(2 ** 40, "far");
    n.plan.periodStartAt = "0000-03-01T00:00:00.000Z";
    n.plan.periodEndAt = "9999-12-31T23:59:59.999Z";
    await applyOps(store, T1, () => [{ op: "plan.insert", plan: n, rawJson: "{}", hash: "h" }]);
    const { rows } = await store.pool.query(
      "SELECT id, project_id, period_start_at, period_end_at, first_seen_at, enabled FROM plans",
    );
    expect(rows).toEqual([
      {
        id: 2 ** 40,
        project_id: 3_000_000_000 + 2 ** 40,
        period_start_at: "0000-03-01T00:00:00.000Z",
        period_end_at: "9999-12-31T23:59:59.999Z",
        first_seen_at: T1,
        enabled: true,
      },
    ]);
    // The analyst sees real types: a timestamptz and a boolean.
    const { rows: types } = await other.query(
      "SELECT pg_typeof(first_seen_at)::text AS t, pg_typeof(enabled)::text AS b FROM plans",
    );
    expect(types).toEqual([{ t: "timestamp with time zone", b: "boolean" }]);
  });

  it("keeps raw JSON byte for byte, and writes a NUL of a rejected record as \\u0000", async () => {
    const text = '{"name":"caf\\u00e9 ☕","x":1.50,  "nul":"\\u0000"}';
    const bad = "not json \u0000 here";
    await applyOps(store, T1, () => [
      { op: "plan.insert", plan: plan(1, "one"), rawJson: text, hash: "h" },
      { op: "reject", entity: "plan", entityId: null, reason: "not JSON", rawJson: bad, hash: "b" },
    ]);
    const { rows } = await store.pool.query(
      "SELECT raw_json FROM plans UNION ALL SELECT raw_json FROM rejected_records",
    );
    expect(rows.map((r) => r.raw_json)).toEqual([text, "not json \\u0000 here"]);
  });

  it("never says the password of the URL", async () => {
    const u = new URL(PG_URL);
    u.password = "s3cret-pw";
    u.pathname = "/tas_no_such_database";
    const target = databaseTarget(u.toString());
    if (target.dialect !== "postgres") throw new Error("not postgres");
    const err = await openPostgresStore(target).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain("tas_no_such_database");
    expect((err as Error).message).toContain("***");
    expect((err as Error).message).not.toContain("s3cret-pw");
  });
});

describe("applying a snapshot", () => {
  it("waits for the company's advisory lock while another transaction holds it", async () => {
    await other.query("BEGIN");
    await other.query("SELECT pg_advisory_xact_lock($1)", [COMPANY]);
    let done = false;
    const applying = applyOps(store, T1, () => [insert(1, "one")]).finally(() => {
      done = true;
    });
    // The apply's session shows up waiting for that advisory lock. pg_locks is the whole
    // cluster's: another run of this suite beside this one waits for the same key in its own
    // database.
    for (;;) {
      const { rows } = await other.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [COMPANY],
      );
      if (rows[0].n === 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(done).toBe(false);
    await other.query("COMMIT");
    expect((await applying).result.applied).toBe(true);
  });

  it("rolls back everything written so far when aborted mid-snapshot, and says why", async () => {
    const abort = new AbortController();
    const why = new Error("the process is stopping");
    const ops = function* (): Generator<SnapshotOp> {
      for (let id = 1; id <= BATCH_SIZE * 2; id++) {
        // Past a batch: rows were sent, then the run is abandoned.
        if (id === BATCH_SIZE + 1200) abort.abort(why);
        yield insert(id, `p${id}`);
      }
    };
    await expect(applyOps(store, T1, ops, { signal: abort.signal })).rejects.toBe(why);
    const { rows } = await store.pool.query(
      "SELECT (SELECT count(*) FROM plans) AS plans, (SELECT count(*) FROM plan_versions) AS versions, (SELECT count(*) FROM sync_state WHERE applied_started_at IS NOT NULL) AS applied",
    );
    expect(rows).toEqual([{ plans: 0, versions: 0, applied: 0 }]);
    // The pool is fine afterwards.
    expect((await applyOps(store, T2, () => [insert(1, "one")])).result.applied).toBe(true);
  });

  it("rolls back a batch still being written when the plan throws, none of it written after", async () => {
    // One connection: a statement the batch would send after the ROLLBACK (it would be
    // autocommitted: the next table's COPY) is queued before the count below, on the session.
    const target = databaseTarget(url);
    if (target.dialect !== "postgres") throw new Error("not postgres");
    const single = await openPostgresStore(target, { poolSize: 1 });
    try {
      const ops = function* (): Generator<SnapshotOp> {
        // The first batch is handed to the database at its last operation; the next one throws.
        for (let id = 1; id <= BATCH_SIZE + 1; id++) yield insert(id, `p${id}`);
        throw new Error("bug in the plan");
      };
      await expect(applyOps(single, T1, ops)).rejects.toThrow("bug in the plan");
      const { rows } = await single.pool.query(
        "SELECT (SELECT count(*)::int FROM plans) AS plans, (SELECT count(*)::int FROM plan_versions) AS versions, (SELECT count(*)::int FROM mobile_apps) AS apps",
      );
      expect(rows).toEqual([{ plans: 0, versions: 0, apps: 0 }]);
    } finally {
      await single.close();
    }
  });

  it("fails the apply with the error of a batch written while the next one filled", async () => {
    const bad = insert(1, "one") as Extract<SnapshotOp, { op: "plan.insert" }>;
    const ops = function* (): Generator<SnapshotOp> {
      // platform is NOT NULL: the first batch's COPY fails while the second batch fills.
      yield { ...bad, plan: { ...bad.plan, plan: { ...bad.plan.plan, platform: null as never } } };
      for (let id = 2; id <= BATCH_SIZE * 2; id++) yield insert(id, `p${id}`);
    };
    await expect(applyOps(store, T1, ops)).rejects.toThrow(/platform/);
    expect((await other.query("SELECT count(*)::int AS n FROM plans")).rows).toEqual([{ n: 0 }]);
    // The session was rolled back cleanly: the next apply works.
    expect((await applyOps(store, T2, () => [insert(1, "one")])).result.applied).toBe(true);
  });

  it("stops waiting for the company's lock when aborted", async () => {
    await other.query("BEGIN");
    await other.query("SELECT pg_advisory_xact_lock($1)", [COMPANY]);
    const abort = new AbortController();
    const applying = applyOps(store, T1, () => [insert(1, "one")], { signal: abort.signal });
    for (;;) {
      const { rows } = await other.query(
        // pg_locks is the whole cluster's: other test files wait for advisory locks too.
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      if (rows[0].n === 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const why = new Error("cancelled");
    abort.abort(why);
    await expect(applying).rejects.toBe(why);
    await other.query("COMMIT");
    expect((await store.pool.query("SELECT count(*) AS n FROM plans")).rows).toEqual([{ n: 0 }]);
  });
});

describe("the outbox's group commit", () => {
  it("fails the one write of a turn that fails and commits the others", async () => {
    const row = (key: string) => ({
      key,
      line: 1,
      companyId: 1,
      projectId: 2,
      scenarioName: key,
      payloadJson: JSON.stringify({ project_id: 2, scenario_name: key, source_file: "a.java" }),
      parentKey: null,
    });
    await store.outbox.record([row("a"), row("b"), row("c")], "b", "/a", T1);
    const first = store.outbox.beginAttempt("a", { attempts: 0 }, T1);
    // No raw_json: the scenarios insert fails (NOT NULL).
    const bad = store.outbox.settleCreated("b", { id: 5 } as never, T1);
    const last = store.outbox.beginAttempt("c", { attempts: 0 }, T1);
    await expect(bad).rejects.toThrow(/raw_json/);
    expect(await first).toBe(false);
    expect(await last).toBe(false);
    expect((await store.outbox.get("a"))?.attempts).toBe(1);
    expect((await store.outbox.get("b"))?.status).toBe("pending");
    expect((await store.outbox.get("c"))?.inFlight).toBe(true);
  });
});

describe("query", () => {
  it("lets go of the database when its reader stops early", async () => {
    await applyOps(store, T1, () => [insert(1, "one"), insert(2, "two")]);
    const cursor = await store.sql.query("SELECT * FROM plans, generate_series(1, 100000)");
    for await (const _ of cursor.rows) break;
    // No transaction of the query still holds the table: an exclusive lock is had at once.
    await other.query("BEGIN");
    await other.query("SET LOCAL lock_timeout = '2s'");
    await other.query("LOCK TABLE plans IN ACCESS EXCLUSIVE MODE");
    await other.query("ROLLBACK");
  });

  it("refuses a data-modifying WITH, which only PostgreSQL has", async () => {
    await applyOps(store, T1, () => [insert(1, "one")]);
    await expect(
      store.sql.query("WITH gone AS (DELETE FROM plans RETURNING id) SELECT * FROM gone"),
    ).rejects.toThrow(QueryReadOnlyError);
    expect((await store.pool.query("SELECT count(*) AS n FROM plans")).rows).toEqual([{ n: 1 }]);
  });
});
