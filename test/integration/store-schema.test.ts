/** The observed schema through the store port, on every store kind: written by a snapshot, read back, acknowledged. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { JSON_TYPES, type ObservedPath } from "../../src/observed/port.js";
import type { Store } from "../../src/store/port.js";
import type { StoredRecord, StoredSelection } from "../../src/store/port-snapshot.js";
import { applyOps, COMPANY, insert, OTHER_COMPANY, raw, update } from "../support/snapshots.js";
import { storeKinds } from "../support/stores.js";

const T1 = "2025-03-01T10:00:00.000Z";
const T2 = "2025-03-02T10:00:00.000Z";

const path = (over: Partial<ObservedPath> & Pick<ObservedPath, "entity" | "path">): ObservedPath => ({
  companyId: COMPANY,
  present: 1,
  types: Object.fromEntries(JSON_TYPES.map((t) => [t, 0])) as ObservedPath["types"],
  minNumber: null,
  maxNumber: null,
  valuesCapped: false,
  values: [],
  firstRunId: 1,
  firstSeenAt: T1,
  lastRunId: 1,
  lastSeenAt: T1,
  ...over,
});

describe.each(storeKinds())("the observed schema on $name", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh());
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(() => kind.cleanup());

  it("writes a run's paths with their values and its changes, and reads them back", async () => {
    const screen = path({
      entity: "plan",
      path: "screen_shot_type",
      present: 3,
      types: { ...path({ entity: "", path: "" }).types, string: 3 },
      values: [
        { value: "YES", count: 2 },
        { value: "NO", count: 1 },
      ],
    });
    const limit = path({
      entity: "plan",
      path: "limit",
      types: { ...screen.types, string: 0, integer: 1 },
      minNumber: 2,
      maxNumber: 9.5,
    });
    const { runId } = await applyOps(store, T1, () => [
      {
        op: "schema.write",
        write: {
          paths: [screen, limit],
          changes: [
            { entity: "plan", path: "limit", kind: "added", before: null, after: "integer", exampleId: 7 },
          ],
        },
      },
    ]);
    expect(await store.schema.observed({ companyId: COMPANY })).toEqual([limit, screen]);
    expect(await store.schema.observed({ companyId: OTHER_COMPANY })).toEqual([]);
    const changes = await store.schema.changes({ companyId: COMPANY });
    expect(changes).toEqual([
      {
        id: expect.any(Number),
        companyId: COMPANY,
        runId,
        detectedAt: T1,
        entity: "plan",
        path: "limit",
        kind: "added",
        before: null,
        after: "integer",
        exampleId: 7,
        refused: null,
        acknowledgedAt: null,
      },
    ]);
    const [first] = changes;
    expect(await store.schema.changes({ id: first?.id ?? 0 })).toEqual(changes);
    expect(await store.schema.changes({ id: (first?.id ?? 0) + 1 })).toEqual([]);
    expect(await store.schema.changes({ kinds: ["added", "type_changed"] })).toEqual(changes);
    expect(await store.schema.changes({ kinds: ["removed"] })).toEqual([]);
    // A later write replaces the path whole, values included.
    await applyOps(store, T2, () => [
      {
        op: "schema.write",
        write: { paths: [{ ...screen, present: 1, values: [{ value: "NO", count: 1 }] }], changes: [] },
      },
    ]);
    expect((await store.schema.observed({})).find((p) => p.path === "screen_shot_type")?.values).toEqual([
      { value: "NO", count: 1 },
    ]);
    expect(await store.schema.openChanges([COMPANY, OTHER_COMPANY])).toEqual(
      new Map([
        [COMPANY, 1],
        [OTHER_COMPANY, 0],
      ]),
    );
    expect(await store.schema.changes({ sinceAt: T2 })).toEqual([]);
    expect(await store.schema.acknowledge({ companyId: COMPANY }, T2)).toBe(1);
    expect(await store.schema.changes({ open: true })).toEqual([]);
    expect((await store.schema.changes({}))[0]?.acknowledgedAt).toBe(T2);
  });

  it("keeps a path's values when the write says so, and moves only the last sighting of paths seen again", async () => {
    const screen = path({
      entity: "plan",
      path: "screen_shot_type",
      present: 2,
      types: { ...path({ entity: "", path: "" }).types, string: 2 },
      values: [{ value: "YES", count: 2 }],
    });
    const limit = path({ entity: "plan", path: "limit", minNumber: 2, maxNumber: 2 });
    await applyOps(store, T1, () => [{ op: "schema.write", write: { paths: [screen, limit], changes: [] } }]);
    const { runId } = await applyOps(store, T2, () => [
      {
        op: "schema.write",
        write: {
          // Values kept: the stored value rows stand (the write carries none of them).
          paths: [{ ...screen, present: 3, lastRunId: 9, lastSeenAt: T2, values: [], valuesKept: true }],
          seen: [{ entity: "plan", path: "limit" }],
          changes: [],
        },
      },
    ]);
    const after = await store.schema.observed({ companyId: COMPANY });
    expect(after.find((p) => p.path === "screen_shot_type")).toEqual({
      ...screen,
      present: 3,
      lastRunId: 9,
      lastSeenAt: T2,
    });
    expect(after.find((p) => p.path === "limit")).toEqual({ ...limit, lastRunId: runId, lastSeenAt: T2 });
  });

  it("reads the stored texts a snapshot needs before it: live ones, live ones among ids, what the newest sync rejected", async () => {
    await applyOps(store, T1, () => [
      insert(1, "one"),
      insert(2, "two"),
      insert(3, "three"),
      { op: "reject", entity: "plan", entityId: 7, reason: "bad", rawJson: '{"id":7}', hash: "h7" },
      { op: "reject", entity: "plan", entityId: null, reason: "no id", rawJson: '"x"', hash: "hx" },
    ]);
    const read = async (which: StoredSelection) => {
      const out: StoredRecord[] = [];
      await store.snapshots.stored(COMPANY, which, (r) => out.push(r));
      return out;
    };
    expect(await read("rejected")).toEqual([{ entity: "plan", id: 7, rawJson: '{"id":7}' }]);
    await applyOps(store, T2, () => [update(1, "uno"), { op: "plan.delete", id: 3 }]);
    expect(await read("live")).toEqual([
      { entity: "plan", id: 1, rawJson: raw(1, "uno") },
      { entity: "plan", id: 2, rawJson: raw(2, "two") },
    ]);
    expect(await read({ plans: [3, 2, 99], reports: [] })).toEqual([
      { entity: "plan", id: 2, rawJson: raw(2, "two") },
    ]);
    // The newest sync rejected nothing: nothing is rejected now.
    expect(await read("rejected")).toEqual([]);
  });
});
