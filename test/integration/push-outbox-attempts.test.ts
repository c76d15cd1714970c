/**
 * The push outbox's attempts (each written ahead, so the next one knows an earlier answer may
 * be lost), failures and their reasons, through the store port and push/'s policy, on every
 * store kind.
 */
import { describe, expect, it } from "vitest";
import { failWithDescendants } from "../../src/push/settle.js";
import { storeKinds } from "../support/stores.js";
import { fail, outboxFixture, row, T0, T1, TREE } from "./outbox-fixture.js";

describe.each(storeKinds())("the push outbox on $name", (kind) => {
  const f = outboxFixture(kind);
  const { outbox, status, created } = f;

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
      const id = f.nextId;
      expect(await created("a")).toEqual([]);
      expect(await outbox.get("a")).toMatchObject({
        status: "created",
        scenarioId: id,
        inFlight: false,
      });
      const stored = await kind.rows(
        f.store,
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
});
