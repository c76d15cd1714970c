/**
 * The push outbox through the store port, and push/'s policy over it (descendants fail with
 * their parent, children wait for a parent whose id is unknown), on every store kind.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { PushReconciler } from "../../src/push/reconcile.js";
import { afterExistsWithoutId, failWithDescendants, queueReady, READY_PAGE } from "../../src/push/settle.js";
import type { Store } from "../../src/store/port.js";
import type { NewRequest, OutboxStore } from "../../src/store/port-outbox.js";
import { storeKinds } from "../support/stores.js";

const T0 = "2025-03-01T10:00:00.000Z";
const T1 = "2025-03-01T10:05:00.000Z";

const body = (key: string) => ({ project_id: 52511, scenario_name: key, source_file: `${key}.java` });

function row(key: string, parentKey: string | null = null, over: Partial<NewRequest> = {}): NewRequest {
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
const TREE = [row("suite"), row("child", "suite"), row("grandchild", "child"), row("lone")];
const fail = (code: string, message = code) => ({ code, message });

describe.each(storeKinds())("the push outbox on $name", (kind) => {
  let store: Store;
  let outbox: OutboxStore;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh());
    outbox = store.outbox;
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    await kind.cleanup();
  });

  const status = async (key: string) => (await outbox.get(key))?.status;
  let nextId = 1_000_001;
  /** Records `key` as created; returns the children that became ready. */
  async function created(key: string): Promise<string[]> {
    const id = nextId++;
    const { ready } = await outbox.settleCreated(
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
  }

  describe("recordRows", () => {
    it("records new rows as pending, with their batch, file and line", async () => {
      const result = await outbox.record([row("a", null, { line: 7 })], "batch-1", "/seed/a.ndjson", T0);
      expect(result).toEqual({
        recorded: 1,
        skipped: { created: 0, exists: 0, failed: 0 },
        changedPayload: [],
      });
      expect(await outbox.get("a")).toMatchObject({
        status: "pending",
        attempts: 0,
        inFlight: false,
        uncertain: false,
        batchId: "batch-1",
        sourceFile: "/seed/a.ndjson",
        sourceLine: 7,
        companyId: 5251,
        projectId: 52511,
        createdAt: T0,
      });
      expect(JSON.parse((await outbox.get("a"))?.payloadJson ?? "")).toEqual(body("a"));
    });

    it("takes over unsettled rows into the new batch and skips settled ones, by status", async () => {
      await outbox.record([row("p"), row("q"), row("c"), row("e"), row("f")], "batch-1", "/a", T0);
      await outbox.takeReady(T0, { batchId: "batch-1" });
      expect(await outbox.queuedKeys({ batchId: "batch-1" })).toHaveLength(5);
      await outbox.settleCreated("c", { id: 42, rawJson: "{}", recordedAt: T0 }, T0);
      await outbox.markExists("e", "lost answer", T0);
      await failWithDescendants(outbox, "f", fail("PROJECT_NOT_FOUND", "nope"), "none", T0);
      // "p" back to pending, as after a crash between recording and queueing.
      await kind.rows(store, "UPDATE scenario_requests SET status = 'pending' WHERE key = 'p' RETURNING key");

      const result = await outbox.record(
        [row("p"), row("q"), row("c"), row("e"), row("f"), row("new")],
        "batch-2",
        "/b",
        T1,
      );
      expect(result).toEqual({
        recorded: 3,
        skipped: { created: 1, exists: 1, failed: 1 },
        changedPayload: [],
      });
      expect(await outbox.get("p")).toMatchObject({
        status: "pending",
        batchId: "batch-2",
        sourceFile: "/b",
      });
      expect(await outbox.get("q")).toMatchObject({ status: "queued", batchId: "batch-2" });
      expect(await outbox.get("c")).toMatchObject({ status: "created", batchId: "batch-1" });
      expect(await outbox.queuedKeys({ batchId: "batch-2" })).toEqual(["q"]);
      expect(await outbox.counts("batch-2")).toEqual({
        pending: 2,
        queued: 1,
        held: 0,
        created: 0,
        exists: 0,
        failed: 0,
        blocked: 0,
      });
    });

    it("keeps the recorded payload of a key seen again with another one, and says which", async () => {
      await outbox.record([row("a"), row("b")], "batch-1", "/a", T0);
      const changed = row("a", null, {
        payloadJson: JSON.stringify({ project_id: 52511, scenario_name: "a", source_file: "Other.java" }),
      });
      const result = await outbox.record([changed, row("b")], "batch-2", "/a", T1);
      expect(result.changedPayload).toEqual(["a"]);
      expect(JSON.parse((await outbox.get("a"))?.payloadJson ?? "")).toMatchObject({
        source_file: "a.java",
      });
    });
  });

  describe("takeReady and settleCreated", () => {
    it("queues roots first and each child only once its parent is created", async () => {
      await outbox.record(TREE, "batch-1", "/a", T0);
      expect((await outbox.takeReady(T0, { batchId: "batch-1" })).sort()).toEqual(["lone", "suite"]);
      expect(await outbox.takeReady(T0, { batchId: "batch-1" })).toEqual([]);
      // Children of a parent that is only queued are not taken.
      expect(await status("child")).toBe("pending");
      expect(await created("suite")).toEqual(["child"]);
      expect(await status("grandchild")).toBe("pending");
      expect(await created("child")).toEqual(["grandchild"]);
      expect(await outbox.counts()).toMatchObject({ pending: 0, queued: 2, created: 2 });
    });

    it("takes a page at a time: every ready row once, in order, and none that is not ready", async () => {
      const roots = Array.from({ length: 10 }, (_, i) => `r${String(i).padStart(2, "0")}`);
      await outbox.record([...roots.map((k) => row(k)), row("c1", "r03")], "b", "/a", T0);
      await outbox.record([row("x")], "other", "/b", T0);
      const pages: string[][] = [];
      for (let after: string | undefined; ; ) {
        const page = await outbox.takeReady(T0, { batchId: "b" }, { limit: 3, after });
        pages.push(page);
        if (page.length < 3) break;
        after = page[page.length - 1];
      }
      expect(pages).toEqual([roots.slice(0, 3), roots.slice(3, 6), roots.slice(6, 9), roots.slice(9)]);
      expect(await outbox.takeReady(T0, { batchId: "b" }, { limit: 3 })).toEqual([]);
      // Its parent is only queued; the other batch's row is not the filter's.
      expect(await status("c1")).toBe("pending");
      expect(await status("x")).toBe("pending");
      expect((await outbox.counts("b")).queued).toBe(10);
    });

    it("lists queued rows a page at a time, as many as the whole list", async () => {
      const keys = Array.from({ length: 7 }, (_, i) => `q${i}`);
      await outbox.record(
        keys.map((k) => row(k)),
        "b",
        "/a",
        T0,
      );
      await outbox.takeReady(T0, { batchId: "b" });
      const first = await outbox.queuedKeys({ batchId: "b" }, { limit: 3 });
      const second = await outbox.queuedKeys({ batchId: "b" }, { limit: 3, after: first[2] });
      const third = await outbox.queuedKeys({ batchId: "b" }, { limit: 3, after: second[2] });
      expect([first, second, third]).toEqual([keys.slice(0, 3), keys.slice(3, 6), keys.slice(6)]);
      expect([...first, ...second, ...third].sort()).toEqual(
        (await outbox.queuedKeys({ batchId: "b" })).sort(),
      );
    });

    it("gives every key one job in a reconciler round over more than a page, a page at a time", async () => {
      const n = READY_PAGE + 5;
      const keys = Array.from({ length: n }, (_, i) => `k${String(i).padStart(6, "0")}`);
      await outbox.record([...keys.map((k) => row(k)), row("kid", keys[0])], "b", "/a", T0);
      const calls: string[][] = [];
      const jobs = {
        enqueue: async (k: readonly string[]) => void calls.push([...k]),
        forget: async () => {},
      };
      const logger = createLogger({ level: "silent", pretty: false });
      const reconciler = new PushReconciler(outbox, jobs, logger, () => new Date(T0));
      expect(await reconciler.requeue({ filter: { batchId: "b" } })).toEqual({
        queued: 0,
        ready: n,
        probes: 0,
      });
      expect(calls.map((c) => c.length)).toEqual([READY_PAGE, 5]);
      expect(calls.flat()).toEqual(keys);
      // Its parent created, the child is queued too; every queued row gets its job again (a no-op
      // for a job that exists), a page at a time.
      expect(await created(keys[0] as string)).toEqual(["kid"]);
      calls.length = 0;
      expect(await reconciler.requeue({ filter: { batchId: "b" } })).toEqual({
        queued: n,
        ready: 0,
        probes: 0,
      });
      expect(calls.flat()).toEqual([...keys.slice(1), "kid"]);
      expect(Math.max(...calls.map((c) => c.length))).toBeLessThanOrEqual(READY_PAGE);
    });

    it("takes only the given batch's rows, and a pending child of a created parent", async () => {
      await outbox.record([row("suite")], "batch-1", "/a", T0);
      await outbox.takeReady(T0);
      await created("suite");
      await outbox.record([row("child", "suite"), row("other")], "batch-2", "/b", T1);
      await outbox.record([row("elsewhere")], "batch-3", "/c", T1);
      expect((await outbox.takeReady(T1, { batchId: "batch-2" })).sort()).toEqual(["child", "other"]);
      expect(await status("elsewhere")).toBe("pending");
    });

    it("fails a row whose parent failed, and blocks one whose parent exists without an id", async () => {
      await outbox.record(
        [row("bad"), row("kid", "bad"), row("ghost"), row("orphan", "ghost"), row("grandorphan", "orphan")],
        "b",
        "/a",
        T0,
      );
      await outbox.takeReady(T0, { batchId: "b" });
      const failedKeys: string[] = [];
      const onFailed = async (keys: readonly string[]) => {
        failedKeys.push(...keys);
      };
      await failWithDescendants(outbox, "bad", fail("PROJECT_NOT_FOUND", "no project"), "none", T0, onFailed);
      expect(failedKeys).toEqual(["bad", "kid"]);
      await outbox.markExists("ghost", "lost answer", T0);
      await outbox.resetFailed({ key: "kid" }, T1);
      expect(await status("kid")).toBe("pending");
      expect(await status("orphan")).toBe("pending");

      expect(await queueReady(outbox, T1, { batchId: "b" }, onFailed)).toEqual([]);
      // Each row that ended failed is told once per time it failed: the reset kid failed again.
      expect(failedKeys).toEqual(["bad", "kid", "kid"]);
      expect(await outbox.get("kid")).toMatchObject({ status: "failed", errorCode: "PARENT_FAILED" });
      expect(await outbox.get("orphan")).toMatchObject({ status: "blocked", errorCode: "PARENT_ID_UNKNOWN" });
      expect((await outbox.get("orphan"))?.lastError).toContain("tas-sync set-parent-id ghost <id>");
      // The grandchild waits for the same id: blocked too, or push --wait would never end.
      expect(await outbox.get("grandorphan")).toMatchObject({
        status: "blocked",
        errorCode: "PARENT_ID_UNKNOWN",
      });
      expect((await outbox.get("grandorphan"))?.lastError).toContain("tas-sync set-parent-id ghost <id>");
      expect(await outbox.counts("b")).toMatchObject({ blocked: 2, failed: 2 });
      expect(await outbox.unsettledCount("b")).toBe(0);
    });

    it("blocks a row left pending below a blocked row, naming the id the chain waits for", async () => {
      await outbox.record([row("ghost"), row("orphan", "ghost"), row("grand", "orphan")], "b", "/a", T0);
      await outbox.takeReady(T0);
      await outbox.markExists("ghost", "lost answer", T0);
      // As a process that stopped between blocking the child and its descendants would leave it.
      await outbox.block(["orphan"], fail("PARENT_ID_UNKNOWN", "waits"), T0);
      expect(await status("grand")).toBe("pending");
      expect(await queueReady(outbox, T1)).toEqual([]);
      expect(await outbox.get("grand")).toMatchObject({ status: "blocked", errorCode: "PARENT_ID_UNKNOWN" });
      expect((await outbox.get("grand"))?.lastError).toContain("tas-sync set-parent-id ghost <id>");
      // Once the id is known, the chain is created top-down: the child first, then the grandchild.
      expect(await outbox.learnId("ghost", 7, "user", T1)).toBe(true);
      expect(await outbox.takeReady(T1, { parentKey: "ghost" })).toEqual(["orphan"]);
      expect(await status("grand")).toBe("blocked");
    });

    it("queues a blocked row once its parent learns its id, from the user", async () => {
      await outbox.record([row("ghost"), row("orphan", "ghost")], "b", "/a", T0);
      await outbox.takeReady(T0);
      await outbox.markExists("ghost", "lost answer", T0);
      await queueReady(outbox, T0);
      expect(await status("orphan")).toBe("blocked");
      expect(await outbox.learnId("orphan", 77, "user", T1)).toBe(false);
      expect(await outbox.learnId("ghost", 77, "user", T1)).toBe(true);
      expect(await outbox.learnId("ghost", 78, "user", T1)).toBe(false);
      expect(await outbox.get("ghost")).toMatchObject({
        status: "exists",
        scenarioId: 77,
        scenarioIdSource: "user",
      });
      expect(await queueReady(outbox, T1)).toEqual(["orphan"]);
      const sendable = await outbox.sendable("orphan");
      expect(sendable?.parent).toMatchObject({
        key: "ghost",
        status: "exists",
        scenarioId: 77,
        scenarioJson: null,
      });
    });

    it("learns a lost parent's id from another row's inline parent object of the same project and name", async () => {
      const inline = row("sibling", null, {
        payloadJson: JSON.stringify({
          project_id: 52511,
          scenario_name: "sibling",
          source_file: "s.java",
          parent: { id: 31337, scenario_name: "ghost", project_id: 52511 },
        }),
      });
      await outbox.record([row("ghost"), row("orphan", "ghost"), inline], "b", "/a", T0);
      await outbox.takeReady(T0);
      await outbox.markExists("ghost", "lost answer", T0);
      const ready = await afterExistsWithoutId(
        outbox,
        { key: "ghost", projectId: 52511, scenarioName: "ghost" },
        T1,
      );
      expect(ready).toEqual(["orphan"]);
      expect(await outbox.get("ghost")).toMatchObject({
        scenarioId: 31337,
        scenarioIdSource: "inline-parent",
      });
    });

    it("blocks the children when no other row names the lost parent", async () => {
      await outbox.record([row("ghost"), row("orphan", "ghost")], "b", "/a", T0);
      await outbox.takeReady(T0);
      await outbox.markExists("ghost", "lost answer", T0);
      expect(
        await afterExistsWithoutId(outbox, { key: "ghost", projectId: 52511, scenarioName: "ghost" }, T1),
      ).toEqual([]);
      expect(await status("orphan")).toBe("blocked");
      expect((await outbox.rowsWithStatus("blocked", { limit: 10 })).map((r) => r.key)).toEqual(["orphan"]);
    });

    it("upgrades exists to created when a later attempt's answer comes back, and frees the waiting children", async () => {
      await outbox.record([row("ghost"), row("orphan", "ghost")], "b", "/a", T0);
      await outbox.takeReady(T0);
      await outbox.markExists("ghost", "lost answer", T0);
      await queueReady(outbox, T0);
      expect(await created("ghost")).toEqual(["orphan"]);
      expect(await outbox.get("ghost")).toMatchObject({ status: "created", scenarioIdSource: "answer" });
    });
  });

  describe("attempts", () => {
    it("writes each attempt ahead, so the next one knows an earlier answer may be lost", async () => {
      await outbox.record([row("a")], "b", "/a", T0);
      await outbox.takeReady(T0);
      expect(await outbox.beginAttempt("a", { attempts: 0 }, T0)).toBe(false);
      expect(await outbox.get("a")).toMatchObject({ attempts: 1, inFlight: true, uncertain: false });
      // A crash here leaves in_flight set: the next attempt is uncertain.
      expect(await outbox.beginAttempt("a", { attempts: 1 }, T1)).toBe(true);
      expect(await outbox.get("a")).toMatchObject({ attempts: 2, inFlight: true, uncertain: true });
    });

    it("forgets an attempt that surely did not reach the server, not one that may have", async () => {
      await outbox.record([row("sure"), row("unsure")], "b", "/a", T0);
      for (const key of ["sure", "unsure"]) await outbox.beginAttempt(key, { attempts: 0 }, T0);
      await outbox.endAttempt("sure", "sure", fail("CONNECTION_FAILED", "refused"), T0);
      await outbox.endAttempt("unsure", "unknown", fail("TIMEOUT", "no answer"), T0);
      expect(await outbox.get("sure")).toMatchObject({
        inFlight: false,
        errorCode: "CONNECTION_FAILED",
      });
      expect(await outbox.get("unsure")).toMatchObject({ inFlight: true, lastError: "no answer" });
      expect(await outbox.beginAttempt("sure", { attempts: 1 }, T1)).toBe(false);
      expect(await outbox.beginAttempt("unsure", { attempts: 1 }, T1)).toBe(true);
    });

    it("keeps a crashed attempt's mark when a later run fails before sending anything", async () => {
      await outbox.record([row("a"), row("b")], "b", "/a", T0);
      await outbox.takeReady(T0);
      for (const key of ["a", "b"]) await outbox.beginAttempt(key, { attempts: 0 }, T0); // then: kill -9
      // The next run cannot even get a token: nothing of its own was sent.
      await outbox.endAttempt("a", "none", fail("INVALID_CLIENT", "token refused"), T1);
      expect(await outbox.beginAttempt("a", { attempts: 1 }, T1)).toBe(true);
      await failWithDescendants(outbox, "b", fail("INVALID_CLIENT", "token refused"), "none", T1);
      expect(await outbox.get("b")).toMatchObject({
        status: "failed",
        inFlight: false,
        uncertain: true,
      });
    });

    it("does not make a sure failure of our own attempt uncertain", async () => {
      await outbox.record([row("a")], "b", "/a", T0);
      await outbox.takeReady(T0);
      await outbox.beginAttempt("a", { attempts: 0 }, T0);
      await failWithDescendants(outbox, "a", fail("INVALID_SCENARIO_NAME", "taken"), "sure", T0);
      expect(await outbox.get("a")).toMatchObject({
        status: "failed",
        inFlight: false,
        uncertain: false,
      });
    });

    it("lets no duplicate run of a job overwrite a settled row, but lets an answer with the id upgrade exists", async () => {
      await outbox.record([row("a"), row("b")], "b", "/a", T0);
      await outbox.takeReady(T0);
      await created("a");
      expect(await outbox.markExists("a", "clash", T1)).toBe(false);
      expect(await failWithDescendants(outbox, "a", fail("X", "late failure"), "none", T1)).toBe(0);
      expect(await outbox.get("a")).toMatchObject({ status: "created" });
      expect(await outbox.markExists("b", "clash", T1)).toBe(true);
      await created("b");
      expect(await outbox.get("b")).toMatchObject({ status: "created" });
    });

    it("records a created row with its scenario and clears the in-flight mark", async () => {
      await outbox.record([row("a")], "b", "/a", T0);
      await outbox.beginAttempt("a", { attempts: 0 }, T0);
      const id = nextId;
      expect(await created("a")).toEqual([]);
      expect(await outbox.get("a")).toMatchObject({
        status: "created",
        scenarioId: id,
        inFlight: false,
      });
      const stored = await kind.rows(
        store,
        "SELECT request_key, scenario_name FROM scenarios WHERE id = ?",
        id,
      );
      expect(stored).toEqual([{ request_key: "a", scenario_name: "a" }]);
    });
  });

  describe("markFailed and resetFailed", () => {
    it("fails every unsettled descendant, down to grandchildren, with PARENT_FAILED", async () => {
      await outbox.record([...TREE, row("sibling", "suite")], "b", "/a", T0);
      await outbox.takeReady(T0);
      expect(
        await failWithDescendants(outbox, "suite", fail("PROJECT_NOT_FOUND", "no project"), "none", T1),
      ).toBe(4);
      expect(await outbox.get("suite")).toMatchObject({
        status: "failed",
        errorCode: "PROJECT_NOT_FOUND",
      });
      for (const key of ["child", "grandchild", "sibling"]) {
        expect(await outbox.get(key)).toMatchObject({
          status: "failed",
          errorCode: "PARENT_FAILED",
          attempts: 0,
        });
      }
      expect((await outbox.get("grandchild"))?.lastError).toBe("parent failed: child");
      expect(await status("lone")).toBe("queued");
    });

    it("leaves settled descendants alone", async () => {
      await outbox.record(TREE, "b", "/a", T0);
      await outbox.takeReady(T0);
      await created("suite");
      await created("child");
      expect(
        await failWithDescendants(outbox, "grandchild", fail("INVALID_REQUEST", "bad"), "none", T1),
      ).toBe(1);
      expect(await status("child")).toBe("created");
    });

    it("keeps an in-flight attempt's doubt when the row fails, so a retry's clash means exists", async () => {
      await outbox.record([row("a")], "b", "/a", T0);
      expect(await outbox.beginAttempt("a", { attempts: 0 }, T0)).toBe(false);
      await failWithDescendants(outbox, "a", fail("TIMEOUT", "gave up after 1 attempts"), "none", T0);
      expect(await outbox.get("a")).toMatchObject({
        status: "failed",
        inFlight: false,
        uncertain: true,
      });
      await outbox.resetFailed({}, T1);
      expect(await outbox.beginAttempt("a", { attempts: 1 }, T1)).toBe(true);
    });

    it("blocks and fails more rows at once than a statement has parameters, settled rows left alone", async () => {
      const keys = Array.from({ length: 70_000 }, (_, i) => `r${i}`);
      await outbox.record(
        keys.map((k) => row(k)),
        "b",
        "/a",
        T0,
      );
      await created("r0");
      expect(await outbox.beginAttempt("r1", { attempts: 0 }, T0)).toBe(false);
      expect(await outbox.block(keys, fail("PARENT_ID_UNKNOWN", "waits"), T1)).toBe(keys.length - 1);
      expect(await outbox.get("r2")).toMatchObject({ status: "blocked", errorCode: "PARENT_ID_UNKNOWN" });
      expect(await outbox.failMany(keys, fail("PARENT_FAILED", "parent failed: p"), T1)).toBe(
        keys.length - 1,
      );
      expect(await outbox.get(keys.at(-1) as string)).toMatchObject({
        status: "failed",
        errorCode: "PARENT_FAILED",
        lastError: "parent failed: p",
        uncertain: false,
      });
      // An attempt left in flight becomes doubt, as markFailed with nothing known of it.
      expect(await outbox.get("r1")).toMatchObject({ status: "failed", inFlight: false, uncertain: true });
      expect(await status("r0")).toBe("created");
      expect(await outbox.failMany([], fail("PARENT_FAILED"), T1)).toBe(0);
      expect(await outbox.block([], fail("PARENT_ID_UNKNOWN"), T1)).toBe(0);
    });

    it("puts failed rows back to pending, all of them or by code or key", async () => {
      await outbox.record([row("a"), row("b"), row("c"), row("ok")], "b", "/a", T0);
      await failWithDescendants(outbox, "a", fail("PROJECT_NOT_FOUND", "x"), "none", T0);
      await failWithDescendants(outbox, "b", fail("INVALID_SCENARIO_NAME", "x"), "none", T0);
      await failWithDescendants(outbox, "c", fail("INVALID_SCENARIO_NAME", "x"), "none", T0);
      await created("ok");
      expect(await outbox.resetFailed({ code: "PROJECT_NOT_FOUND" }, T1)).toEqual(["a"]);
      expect(await outbox.get("a")).toMatchObject({
        status: "pending",
        errorCode: null,
        lastError: null,
      });
      expect(await outbox.resetFailed({ key: "c" }, T1)).toEqual(["c"]);
      expect(await status("b")).toBe("failed");
      expect(await outbox.resetFailed({}, T1)).toEqual(["b"]);
      expect(await outbox.resetFailed({}, T1)).toEqual([]);
      expect(await status("ok")).toBe("created");
    });
  });

  describe("failure reasons", () => {
    it("counts failed rows by code, most first, then by code in code-point order", async () => {
      await outbox.record([row("a"), row("b"), row("c"), row("d"), row("e")], "b1", "/a", T0);
      await outbox.record([row("z")], "b2", "/b", T0);
      await failWithDescendants(outbox, "a", fail("TIMEOUT"), "none", T0);
      await failWithDescendants(outbox, "b", fail("b_lower"), "none", T0);
      await failWithDescendants(outbox, "c", fail("A_UPPER"), "none", T0);
      await failWithDescendants(outbox, "d", fail("TIMEOUT"), "none", T0);
      await failWithDescendants(outbox, "z", fail("OTHER"), "none", T0);
      expect(await outbox.failureReasons("b1")).toEqual([
        { code: "TIMEOUT", n: 2 },
        { code: "A_UPPER", n: 1 },
        { code: "b_lower", n: 1 },
      ]);
      expect((await outbox.failureReasons()).map((r) => r.code)).toEqual([
        "TIMEOUT",
        "A_UPPER",
        "OTHER",
        "b_lower",
      ]);
    });
  });

  describe("recordSeedRejections", () => {
    it("stores each rejected row with its batch, file, line, field and reason", async () => {
      await outbox.recordRejections(
        "b",
        "/a.ndjson",
        [
          { line: 3, key: "x", field: "source_file", reason: "missing required field" },
          { line: 9, key: null, field: null, reason: "not JSON" },
        ],
        T0,
      );
      expect(
        await kind.rows(
          store,
          "SELECT batch_id, source_file, line, key, field, reason FROM seed_rejections ORDER BY line",
        ),
      ).toEqual([
        {
          batch_id: "b",
          source_file: "/a.ndjson",
          line: 3,
          key: "x",
          field: "source_file",
          reason: "missing required field",
        },
        { batch_id: "b", source_file: "/a.ndjson", line: 9, key: null, field: null, reason: "not JSON" },
      ]);
    });
  });
});
