/**
 * Two runs of one create job at once: BullMQ hands a job out again when its lock is lost (a
 * stalled worker, or a Redis that came back empty while a run waited for its rate-limit slot).
 * The first run to write its attempt ahead sends; the other, finding the row moved since it read
 * it, sends nothing. The simulator's names are not unique, so a second send would be a second
 * scenario, and push.uniqueNames false leaves no name clash to catch it.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type CreateDeps, createScenarioFor } from "../../src/push/create.js";
import { loadSeed, newRequests } from "../../src/push/submit.js";
import { createClients } from "../../src/runtime.js";
import { storeKinds } from "../support/stores.js";
import { COMPANY, logger, notOnce, type PushHarness, seedRow, startPushHarness } from "./push-harness.js";

/** A rate-limit slot that is given only when the test says so, and says when it is asked for. */
function heldSlot() {
  let asked!: () => void;
  let give!: () => void;
  const waiting = new Promise<void>((r) => {
    asked = r;
  });
  const given = new Promise<void>((r) => {
    give = r;
  });
  return {
    acquire: async () => {
      asked();
      await given;
    },
    /** Resolves once `run` asks for its slot; a run that ends first (it threw, or sent nothing) fails the test. */
    waitingIn: (run: Promise<unknown>) =>
      Promise.race([
        waiting,
        run.then((r) => {
          throw new Error(`the run ended before it asked for its slot: ${JSON.stringify(r)}`);
        }),
      ]),
    give,
  };
}

describe.each(storeKinds())("overlapping runs of one create job on $name", (kind) => {
  let h: PushHarness | undefined;
  let closeClients: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await closeClients?.();
    closeClients = undefined;
    await h?.close();
    h = undefined;
  });
  afterAll(() => kind.cleanup());

  async function setUp(names: string[], uniqueNames: boolean) {
    h = await startPushHarness(kind);
    const t = h;
    const cfg = t.cfg;
    const store = await t.store();
    const now = new Date().toISOString();
    const seed = await loadSeed(
      cfg,
      t.seed(
        "overlap.ndjson",
        names.map((n) => seedRow(n)),
      ),
    );
    await store.outbox.record(newRequests(seed.rows()), "b", seed.file, now);
    await store.outbox.takeReady(now);
    const clients = createClients(cfg, logger);
    closeClients = () => clients.close();
    const deps = (acquireSlot: () => Promise<void>): CreateDeps => ({
      outbox: store.outbox,
      clientFor: clients.clientFor,
      acquireSlot,
      uniqueNames,
      logger,
    });
    return { t, store, deps };
  }

  for (const uniqueNames of [false, true])
    it(`sends a row once when a run that read it waits while another creates it (uniqueNames ${uniqueNames})`, async () => {
      const { t, deps } = await setUp(["Twice"], uniqueNames);
      const slot = heldSlot();
      // The first run reads the row, then waits for its slot (as through a Redis outage).
      const first = createScenarioFor(deps(slot.acquire), "Twice");
      await slot.waitingIn(first);
      // Meanwhile the job is handed out again, and that run creates the scenario.
      expect(
        await createScenarioFor(
          deps(async () => {}),
          "Twice",
        ),
      ).toMatchObject({ status: "created" });
      slot.give();
      expect(await first).toEqual({ status: "skipped", ready: [] });
      expect(notOnce(await t.createdPerKey(), ["Twice"])).toEqual([]);
      expect(await t.request("Twice")).toMatchObject({ status: "created", attempts: 1, in_flight: 0 });
    });

  for (const uniqueNames of [false, true])
    it(`sends nothing from a run that read the row before another run wrote ahead and is still sending (uniqueNames ${uniqueNames})`, async () => {
      const { t, store, deps } = await setUp(["In flight"], uniqueNames);
      const slot = heldSlot();
      const first = createScenarioFor(deps(slot.acquire), "In flight");
      await slot.waitingIn(first);
      // Another run writes its attempt ahead and is still waiting for the service's answer.
      const at = new Date().toISOString();
      expect(await store.outbox.beginAttempt("In flight", { attempts: 0 }, at)).toBe(false);
      slot.give();
      expect(await first).toEqual({ status: "skipped", ready: [] });
      expect(await t.scenarios()).toEqual([]);
      expect(await t.request("In flight")).toMatchObject({ status: "queued", attempts: 1, in_flight: 1 });
    });

  it("sends nothing for a row held after its run read it, and lets a run that read the row before a 429 send", async () => {
    const { t, store, deps } = await setUp(["Held", "After 429"], false);
    const slot = heldSlot();
    const held = createScenarioFor(deps(slot.acquire), "Held");
    await slot.waitingIn(held);
    const at = new Date().toISOString();
    await store.outbox.hold(COMPANY, { code: "CREDENTIALS_REFUSED", message: "refused" }, at);
    slot.give();
    expect(await held).toEqual({ status: "skipped", ready: [] });
    expect(await t.request("Held")).toMatchObject({ status: "held", attempts: 0, in_flight: 0 });

    // A 429 gives its attempt back (nothing was created, and it is over): a run that read the
    // row before it still sends.
    await store.outbox.release(COMPANY, at);
    await store.outbox.takeReady(at);
    const later = heldSlot();
    const run = createScenarioFor(deps(later.acquire), "After 429");
    await later.waitingIn(run);
    const seen = { attempts: 0 };
    expect(await store.outbox.beginAttempt("After 429", seen, at)).toBe(false);
    await store.outbox.endAttempt("After 429", "refused", { code: "RATE_LIMITED", message: "429" }, at);
    later.give();
    expect(await run).toMatchObject({ status: "created" });
    expect(notOnce(await t.createdPerKey(), ["After 429"])).toEqual([]);
  });
});
