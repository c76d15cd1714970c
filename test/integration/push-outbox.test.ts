/**
 * The push outbox through the store port, and push/'s policy over it (descendants fail with
 * their parent, children wait for a parent whose id is unknown), on every store kind: queueing
 * the ready rows and settling them. Attempts and failures: push-outbox-attempts.test.ts;
 * recording rows and rejections: push-outbox-records.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { PushReconciler } from "../../src/push/reconcile.js";
import { afterExistsWithoutId, failWithDescendants, queueReady, READY_PAGE } from "../../src/push/settle.js";
import { storeKinds } from "../support/stores.js";
import { fail, outboxFixture, row, T0, T1, TREE } from "./outbox-fixture.js";

describe.each(storeKinds())("the push outbox on $name", (kind) => {
  const { outbox, status, created } = outboxFixture(kind);

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
});
