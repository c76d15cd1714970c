/**
 * The push outbox tests' shared setup (push-outbox*.test.ts): rows and times, and per test a
 * fresh store of the kind under test, closed after it.
 */
import { afterAll, afterEach, beforeEach } from "vitest";
import type { Store } from "../../src/store/port.js";
import type { NewRequest, OutboxStore } from "../../src/store/port-outbox.js";
import type { RequestStatus } from "../../src/tables/outbox-states.js";
import type { StoreKind } from "../support/stores.js";

export const T0 = "2025-03-01T10:00:00.000Z";
export const T1 = "2025-03-01T10:05:00.000Z";

export const body = (key: string) => ({
  project_id: 52511,
  scenario_name: key,
  source_file: `${key}.java`,
});

export function row(
  key: string,
  parentKey: string | null = null,
  over: Partial<NewRequest> = {},
): NewRequest {
  return {
    key,
    line: 1,
    companyId: 5251,
    projectId: 52511,
    scenarioName: key,
    payloadJson: JSON.stringify(body(key)),
    parentKey,
    ...over,
  };
}

/** suite -> child -> grandchild, plus a lone root. */
export const TREE = [row("suite"), row("child", "suite"), row("grandchild", "child"), row("lone")];
export const fail = (code: string, message = code) => ({ code, message });

export interface OutboxFixture {
  /** The store of the test running now. */
  readonly store: Store;
  /** The outbox of the test running now's store (one object, to destructure once). */
  readonly outbox: OutboxStore;
  status(key: string): Promise<RequestStatus | undefined>;
  /** The scenario id the next `created` gives. */
  readonly nextId: number;
  /** Records `key` as created; returns the children that became ready. */
  created(key: string): Promise<string[]>;
}

/** Call in a describe block: its tests each get a fresh store of `kind`. */
export function outboxFixture(kind: StoreKind): OutboxFixture {
  let current: Store | undefined;
  beforeEach(async () => {
    current = await kind.open(await kind.fresh());
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  afterAll(async () => {
    await kind.cleanup();
  });
  let nextId = 1_000_001;
  const fixture: OutboxFixture = {
    get store() {
      if (!current) throw new Error("no store outside a test");
      return current;
    },
    get nextId() {
      return nextId;
    },
    outbox: new Proxy({} as OutboxStore, {
      get(_, name) {
        const outbox = fixture.store.outbox;
        const value = outbox[name as keyof OutboxStore];
        return typeof value === "function" ? value.bind(outbox) : value;
      },
    }),
    status: async (key) => (await fixture.outbox.get(key))?.status,
    async created(key) {
      const id = nextId++;
      const { ready } = await fixture.outbox.settleCreated(
        key,
        {
          id,
          requestKey: key,
          scenarioName: key,
          rawJson: JSON.stringify({ id, scenario_name: key }),
          recordedAt: T1,
        },
        T1,
      );
      return ready;
    },
  };
  return fixture;
}
