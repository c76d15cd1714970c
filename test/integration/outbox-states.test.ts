/**
 * The outbox's state machine (schema/outbox-states.ts), walked through the store port on every
 * store kind: each transition from each state moves the row exactly when the state machine says
 * it may, and to the state it names; what makes a row ready is the same rule on both stores.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/port.js";
import type { NewRequest, OutboxStore } from "../../src/store/port-outbox.js";
import {
  canMove,
  OUTCOME_UNKNOWN,
  REQUEST_STATUSES,
  type RequestStatus,
  TRANSITIONS,
  type TransitionName,
} from "../../src/tables/outbox-states.js";
import { storeKinds } from "../support/stores.js";

const T0 = "2025-03-01T10:00:00.000Z";
const COMPANY = 5251;

function request(key: string, parentKey: string | null = null): NewRequest {
  return {
    key,
    companyId: COMPANY,
    projectId: 52511,
    scenarioName: key,
    payloadJson: JSON.stringify({ project_id: 52511, scenario_name: key, source_file: "a.java" }),
    parentKey,
    line: 1,
  };
}

/** Each transition as the port performs it, on row `key` (its company's only row). */
const PERFORM: Record<TransitionName, (o: OutboxStore, key: string) => Promise<unknown>> = {
  queue: (o) => o.takeReady(T0),
  hold: (o) => o.hold(COMPANY, { code: "CREDENTIALS_REFUSED", message: "refused" }, T0),
  release: (o) => o.release(COMPANY, T0),
  probe: (o) => o.probeHeld(T0),
  block: (o, key) => o.block([key], { code: "PARENT_ID_UNKNOWN", message: "waits" }, T0),
  create: (o, key) => o.settleCreated(key, { id: 77, requestKey: key, rawJson: "{}", recordedAt: T0 }, T0),
  exist: (o, key) => o.markExists(key, "lost answer", T0),
  fail: (o, key) => o.markFailed(key, { code: "X", message: "x" }, "none", T0),
  retry: (o, key) => o.resetFailed({ key }, T0),
};

describe.each(storeKinds())("the outbox's state machine on $name", (kind) => {
  let store: Store;
  let n = 0;
  const fresh = async () => kind.open(await kind.fresh({ migrated: true }));
  beforeEach(async () => {
    await store?.close();
    store = await fresh();
  });
  afterAll(async () => {
    await store?.close();
    await kind.cleanup();
  });

  async function rowIn(status: RequestStatus, parentKey: string | null = null, on = store): Promise<string> {
    const key = `r${n++}`;
    await on.outbox.record([request(key, parentKey)], "b", "/seed", T0);
    await kind.rows(on, "UPDATE scenario_requests SET status = ? WHERE key = ? RETURNING key", status, key);
    return key;
  }
  const statusOf = async (key: string, on = store) => (await on.outbox.get(key))?.status;

  const walk = Object.keys(TRANSITIONS).flatMap((op) =>
    REQUEST_STATUSES.map((from) => [op as TransitionName, from] as const),
  );
  it("walks every transition from every state", async () => {
    // The walk covers the whole table: 9 operations, 7 states.
    expect(walk).toHaveLength(Object.keys(TRANSITIONS).length * REQUEST_STATUSES.length);
    let moved = 0;
    for (const [op, from] of walk) {
      // A database of its own: hold, release, probe and takeReady act on every row they may.
      const own = await fresh();
      try {
        const key = await rowIn(from, null, own);
        await PERFORM[op](own.outbox, key);
        const expected = canMove(op, from) ? TRANSITIONS[op].to : from;
        expect({ op, from, to: await statusOf(key, own) }).toEqual({ op, from, to: expected });
        if (expected !== from) moved++;
      } finally {
        await own.close();
      }
    }
    // Both outcomes were seen: moves, and refusals.
    expect(moved).toBeGreaterThan(10);
    expect(moved).toBeLessThan(walk.length);
  }, 180_000);

  it.each(REQUEST_STATUSES)(
    "queues a child of a %s parent only when the parent gives its id",
    async (parent) => {
      const withId = await rowIn(parent);
      const withoutId = await rowIn(parent);
      await kind.rows(
        store,
        "UPDATE scenario_requests SET scenario_id = 9 WHERE key = ? RETURNING key",
        withId,
      );
      const a = await rowIn("pending", withId);
      const b = await rowIn("pending", withoutId);
      const ready = await store.outbox.takeReady(T0, { parentKey: withId });
      const readyToo = await store.outbox.takeReady(T0, { parentKey: withoutId });
      const givesId = parent === "created" || parent === "exists";
      expect({ parent, ready, readyToo }).toEqual({ parent, ready: givesId ? [a] : [], readyToo: [] });
      expect(await statusOf(b)).toBe("pending");
    },
  );

  it("probes one ready held row per company, and releases a company's held rows only", async () => {
    const first = await rowIn("pending");
    const second = await rowIn("queued");
    const child = await rowIn("pending", first);
    const other = `other${n++}`;
    await store.outbox.record([{ ...request(other), companyId: 9999 }], "b", "/seed", T0);
    const refused = { code: "CREDENTIALS_REFUSED", message: "refused" };
    expect(await store.outbox.hold(COMPANY, refused, T0)).toBe(3);
    expect(await store.outbox.hold(9999, refused, T0)).toBe(1);
    const probes = await store.outbox.probeHeld(T0);
    // One per company, never a row whose parent cannot give it an id.
    expect(probes).toHaveLength(2);
    expect(probes).toContain(other);
    expect(probes).not.toContain(child);
    // The probes keep their reason (a probe's create tells whether the credentials work).
    expect((await store.outbox.get(other))?.errorCode).toBe("CREDENTIALS_REFUSED");
    expect(await store.outbox.heldCompanies()).toEqual([
      { companyId: COMPANY, rows: 2, code: "CREDENTIALS_REFUSED", message: "refused" },
    ]);
    expect(await store.outbox.release(COMPANY, T0)).toBe(2);
    const statuses = [await statusOf(first), await statusOf(second), await statusOf(child)];
    expect(statuses.sort()).toEqual(["pending", "pending", "queued"]);
    expect(await statusOf(other)).toBe("queued");
    expect(await store.outbox.heldCompanies()).toEqual([]);
  });

  it("retry-failed sends a row failed as OUTCOME_UNKNOWN again as certain; any other keeps its uncertainty", async () => {
    const unknown = await rowIn("pending");
    const other = await rowIn("pending");
    await store.outbox.markFailed(unknown, { code: OUTCOME_UNKNOWN, message: "may exist" }, "unknown", T0);
    await store.outbox.markFailed(other, { code: "INTERNAL_SERVER_ERROR", message: "500" }, "unknown", T0);
    expect((await store.outbox.get(unknown))?.uncertain).toBe(true);
    expect((await store.outbox.get(other))?.uncertain).toBe(true);
    expect((await store.outbox.resetFailed({}, T0)).sort()).toEqual([unknown, other].sort());
    expect(await store.outbox.get(unknown)).toMatchObject({
      status: "pending",
      uncertain: false,
      errorCode: null,
    });
    expect(await store.outbox.get(other)).toMatchObject({
      status: "pending",
      uncertain: true,
      errorCode: null,
    });
  });

  it("learns an id only for a row that exists with its id unknown", async () => {
    for (const status of REQUEST_STATUSES) {
      const key = await rowIn(status);
      const learned = await store.outbox.learnId(key, 31337, "user", T0);
      expect({ status, learned }).toEqual({ status, learned: status === "exists" });
      if (status === "exists") expect(await store.outbox.learnId(key, 4, "user", T0)).toBe(false);
    }
  });
});
