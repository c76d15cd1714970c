/**
 * settleCreated is one transaction on every store: the row marked created, its scenario
 * recorded and the children it makes ready queued, or none of it, whatever the group commit
 * puts beside it. A trigger makes queueing one child fail: were the settle two writes (the
 * created mark, then the children), the first would stay committed and this test would fail.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import type { NewRequest } from "../../src/store/port-outbox.js";
import type { PostgresStore } from "../../src/store/postgres/index.js";
import type { SqliteStore } from "../../src/store/sqlite/index.js";
import { type StoreKind, storeKinds } from "../support/stores.js";

const T0 = "2025-03-01T10:00:00.000Z";

function request(key: string, parentKey: string | null = null): NewRequest {
  return {
    key,
    companyId: 5251,
    projectId: 52511,
    scenarioName: key,
    payloadJson: JSON.stringify({ project_id: 52511, scenario_name: key, source_file: "a.java" }),
    parentKey,
    line: 1,
  };
}

const scenario = (key: string, id: number) => ({
  id,
  requestKey: key,
  rawJson: `{"id":${id}}`,
  recordedAt: T0,
});

/** A trigger that refuses to queue row `key`. */
async function refuseToQueue(kind: StoreKind, store: Store, key: string): Promise<() => Promise<void>> {
  if (kind.name === "sqlite") {
    const { sqlite } = store as SqliteStore;
    sqlite.exec(`CREATE TRIGGER refuse_queue BEFORE UPDATE OF status ON scenario_requests
      WHEN NEW.key = '${key}' AND NEW.status = 'queued' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    return async () => {
      sqlite.exec("DROP TRIGGER refuse_queue");
    };
  }
  const { pool } = store as PostgresStore;
  await pool.query(`CREATE FUNCTION refuse_queue() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.key = '${key}' AND NEW.status = 'queued' THEN RAISE EXCEPTION 'refused by the test'; END IF;
    RETURN NEW; END $$`);
  await pool.query(
    "CREATE TRIGGER refuse_queue BEFORE UPDATE ON scenario_requests FOR EACH ROW EXECUTE FUNCTION refuse_queue()",
  );
  return async () => {
    await pool.query("DROP TRIGGER refuse_queue ON scenario_requests");
    await pool.query("DROP FUNCTION refuse_queue()");
  };
}

describe.each(storeKinds())("settleCreated on $name", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh({ migrated: true }));
    await store.outbox.record(
      [request("parent"), request("child-1", "parent"), request("child-2", "parent"), request("other")],
      "b",
      "/seed",
      T0,
    );
    expect((await store.outbox.takeReady(T0)).sort()).toEqual(["other", "parent"]);
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(() => kind.cleanup());

  const statuses = async () =>
    Object.fromEntries(
      await Promise.all(
        ["parent", "child-1", "child-2", "other"].map(async (k) => [k, (await store.outbox.get(k))?.status]),
      ),
    );

  it("marks the row created and queues its ready children in one go", async () => {
    expect(await store.outbox.settleCreated("parent", scenario("parent", 41), T0)).toEqual({
      applied: true,
      ready: expect.arrayContaining(["child-1", "child-2"]),
    });
    expect(await statuses()).toEqual({
      parent: "created",
      "child-1": "queued",
      "child-2": "queued",
      other: "queued",
    });
    // A second answer for the same row changes nothing and queues nothing more.
    expect(await store.outbox.settleCreated("parent", scenario("parent", 41), T0)).toEqual({
      applied: false,
      ready: [],
    });
  });

  it("writes none of it when queueing a child fails, while a write beside it in the same commit stands", async () => {
    const restore = await refuseToQueue(kind, store, "child-2");
    // Issued in one event-loop turn: the group commit puts them in one transaction.
    const settle = store.outbox.settleCreated("parent", scenario("parent", 42), T0);
    const beside = store.outbox.markExists("other", "lost answer", T0);
    await expect(settle).rejects.toThrow(/refused by the test/);
    expect(await beside).toBe(true);
    expect(await statuses()).toEqual({
      parent: "queued",
      "child-1": "pending",
      "child-2": "pending",
      other: "exists",
    });
    const recorded = await kind.rows(store, "SELECT id FROM scenarios");
    expect(recorded).toEqual([]);

    await restore();
    const again = await store.outbox.settleCreated("parent", scenario("parent", 42), T0);
    expect({ ...again, ready: again.ready.sort() }).toEqual({ applied: true, ready: ["child-1", "child-2"] });
    expect(await kind.rows(store, "SELECT id FROM scenarios")).toEqual([{ id: 42 }]);
  });
});
