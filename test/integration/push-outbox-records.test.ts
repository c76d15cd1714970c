/**
 * The push outbox records a seed file's rows (new, repeated, changed) and its rejected rows,
 * through the store port, on every store kind.
 */
import { describe, expect, it } from "vitest";
import { failWithDescendants } from "../../src/push/settle.js";
import { storeKinds } from "../support/stores.js";
import { body, fail, outboxFixture, row, T0, T1 } from "./outbox-fixture.js";

describe.each(storeKinds())("the push outbox on $name", (kind) => {
  const f = outboxFixture(kind);
  const { outbox } = f;

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
      await kind.rows(
        f.store,
        "UPDATE scenario_requests SET status = 'pending' WHERE key = 'p' RETURNING key",
      );

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
          f.store,
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
