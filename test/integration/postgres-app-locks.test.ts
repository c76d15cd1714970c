/**
 * PostgreSQL: runs of two companies that share mobile apps never wait on each other in a cycle.
 * A run upserts its mobile apps once, at its end, sorted by id (src/store/postgres/snapshot/
 * plans.ts, `writeApps`): rows of shared apps are locked in one order by every run.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseTarget } from "../../src/config/index.js";
import type { SnapshotOp } from "../../src/store/port-snapshot.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/index.js";
import { BATCH_SIZE } from "../../src/store/postgres/snapshot/writer.js";
import { TestDatabases, truncateAll } from "../support/postgres.js";
import { applyOps, COMPANY, hashOf, OTHER_COMPANY, plan, raw } from "../support/snapshots.js";

const T1 = "2025-03-01T10:00:00.000Z";
const T2 = "2025-03-02T10:00:00.000Z";

const databases = new TestDatabases();
let url: string;
let store: PostgresStore;
/** A second connection to the same database, outside the store. */
let other: pg.Client;

beforeAll(async () => {
  url = await databases.create();
});
afterAll(async () => {
  await databases.dropAll();
});
beforeEach(async () => {
  const target = databaseTarget(url);
  if (target.dialect !== "postgres") throw new Error("not postgres");
  store = await openPostgresStore(target);
  await truncateAll(store.pool);
  other = new pg.Client({ connectionString: url });
  await other.connect();
});
afterEach(async () => {
  await other.end();
  await store.close();
});

/** A new plan of `companyId` that carries mobile app `app`. */
function withApp(id: number, companyId: number, app: number): SnapshotOp {
  const n = plan(id, `p${id}`, companyId);
  n.mobileApps = [{ ...(n.mobileApps[0] as object), id: app }];
  n.planMobileApps = [{ planId: id, operatingSystem: "android", mobileAppId: app }];
  return { op: "plan.insert", plan: n, rawJson: raw(id, `p${id}`), hash: hashOf(id, `p${id}`) };
}

describe("mobile apps shared by two companies' runs", () => {
  it("lets two companies that share mobile apps apply at once, their apps met in opposite orders", async () => {
    // Company A meets app 7 in its first batch and app 3 in its second; B the other way round.
    // Written batch by batch, A would hold 7 and wait for 3 while B held 3 and waited for 7: a
    // deadlock. The run's apps are written at its end, sorted, so one waits for the other.
    const company = (companyId: number, base: number, first: number, second: number) =>
      function* (): Generator<SnapshotOp> {
        for (let k = 1; k <= BATCH_SIZE + 1; k++)
          yield withApp(base + k, companyId, k <= BATCH_SIZE ? first : second);
      };
    /** Backends waiting to write plan_versions (held by `other` below). */
    const waiting = async () =>
      (
        await other.query(
          `SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'plan_versions'::regclass AND NOT granted
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        )
      ).rows[0].n as number;
    const until = async (n: number) => {
      while ((await waiting()) < n) await new Promise((r) => setTimeout(r, 10));
    };
    // Both runs stop at their first batch's versions, each past whatever it wrote before them.
    await other.query("BEGIN");
    await other.query("LOCK TABLE plan_versions IN EXCLUSIVE MODE");
    const a = applyOps(store, T1, company(COMPANY, 0, 7, 3));
    await until(1);
    const b = applyOps(store, T1, company(OTHER_COMPANY, 100_000, 3, 7), { companyId: OTHER_COMPANY });
    await until(2);
    await other.query("COMMIT");
    const [ra, rb] = await Promise.allSettled([a, b]);
    expect([ra.status, rb.status]).toEqual(["fulfilled", "fulfilled"]);
    const { rows } = await other.query("SELECT id::int AS id FROM mobile_apps ORDER BY id");
    expect(rows).toEqual([{ id: 3 }, { id: 7 }]);
  });

  it("locks a run's mobile apps in one shared order, whatever order its list met them in", async () => {
    // A third session holds app 7's row. Run A met 7 before 3, run B 3 before 7. In id order, A
    // takes 3 and waits for 7, B waits for 3: once 7 is free, A ends, then B. In list order, A
    // would wait for 7 holding nothing and B would take 3, then wait for 7: once 7 is free, A
    // takes it and waits for B's 3 while B waits for A's 7, a deadlock.
    const withApps = (companyId: number, ids: number[], apps: number[]) =>
      function* (): Generator<SnapshotOp> {
        for (const [k, id] of ids.entries()) yield withApp(id, companyId, apps[k] as number);
      };
    // Both apps exist, so that a run's upsert waits on the row, not on the insert of a key.
    await applyOps(store, T1, withApps(COMPANY, [1, 2], [3, 7]));
    const holder = (await other.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
    const outcomes: Promise<string>[] = [];
    /**
     * The session blocked by `pid` in its upsert of mobile apps (the lock data is read live;
     * the statements afresh). Gives up when a run has ended, or after 10 s, saying what waits.
     */
    const blockedBy = async (pid: number): Promise<number> => {
      let settled = false;
      for (const o of outcomes) void o.then(() => (settled = true));
      for (const deadline = Date.now() + 10_000; ; ) {
        await other.query("SELECT pg_stat_clear_snapshot()");
        const { rows } = await other.query(
          `SELECT pid, wait_event_type, query, $1 = ANY(pg_blocking_pids(pid)) AS blocked
             FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          [pid],
        );
        const found = rows.find((r) => r.blocked && /mobile_apps/.test(r.query));
        if (found) return found.pid as number;
        if (settled || Date.now() > deadline)
          throw new Error(
            `no run waits for session ${pid} on mobile_apps (${settled ? "a run ended" : "10 s"}): ${JSON.stringify(rows)}`,
          );
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const outcome = (run: Promise<unknown>) =>
      run.then(
        () => "applied",
        (err: unknown) => String(err),
      );
    await other.query("BEGIN");
    try {
      await other.query("SELECT 1 FROM mobile_apps WHERE id = 7 FOR UPDATE");
      outcomes.push(outcome(applyOps(store, T2, withApps(COMPANY, [11, 12], [7, 3]))));
      const a = await blockedBy(holder);
      outcomes.push(
        outcome(
          applyOps(store, T2, withApps(OTHER_COMPANY, [100_011, 100_012], [3, 7]), {
            companyId: OTHER_COMPANY,
          }),
        ),
      );
      // With the sort B waits for A's app 3; without it, for A's place in the queue of app 7.
      await blockedBy(a);
      await other.query("COMMIT");
    } finally {
      await other.query("ROLLBACK");
      await Promise.all(outcomes);
    }
    // Each run's outcome: a deadlock would say so here.
    expect(await Promise.all(outcomes)).toEqual(["applied", "applied"]);
    const { rows } = await other.query("SELECT count(*)::int AS n FROM plans");
    expect(rows).toEqual([{ n: 6 }]);
  });
});
