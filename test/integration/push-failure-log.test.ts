/**
 * The push worker (the daemon's) logs each row that ends failed, once, with its key, company
 * and reason: a row of an unknown project and the rows below it (PARENT_FAILED). Real Redis,
 * SQLite, the simulator over HTTP.
 */
import { Writable } from "node:stream";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { PushQueue } from "../../src/queue/push.js";
import { createClients } from "../../src/runtime.js";
import { until } from "../support/daemon.js";
import { storeKind } from "../support/stores.js";
import {
  COMPANY,
  logger,
  MISSING_PROJECT,
  type PushHarness,
  seedRow,
  startPushHarness,
} from "./push-harness.js";

const kind = storeKind("sqlite");
let h: PushHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(() => kind.cleanup());

describe("the push worker's log", () => {
  it("has one line per row that ends failed, with key, company, code and the whole reason", async () => {
    const t = await startPushHarness(kind);
    h = t;
    const file = t.seed("missing.ndjson", [
      seedRow("Ghost suite", { project_id: MISSING_PROJECT }),
      seedRow("Ghost child", { project_id: MISSING_PROJECT, parent_key: "Ghost suite" }),
      seedRow("Ghost grandchild", { project_id: MISSING_PROJECT, parent_key: "Ghost child" }),
      seedRow("Real one"),
    ]);
    // Recorded and queued; no worker runs yet.
    expect((await t.cli(["push", file])).code).toBe(0);

    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    });
    const workerLog = createLogger({ level: "info", pretty: false, destination: sink });
    const store = await t.store();
    const clients = createClients(t.cfg, logger);
    const queue = new PushQueue({ cfg: t.cfg, outbox: store.outbox, clients, logger: workerLog });
    try {
      queue.startWorker();
      await until("every row settled", async () => {
        const rows = await t.requests();
        return rows.every((r) => ["created", "failed"].includes(r.status)) ? rows : undefined;
      });
    } finally {
      await queue.close();
      await clients.close();
    }
    const failed = lines.filter((l) => l.msg === "push row failed");
    expect(failed.map((l) => l.key).sort()).toEqual(["Ghost child", "Ghost grandchild", "Ghost suite"]);
    for (const l of failed) expect(l.companyId).toBe(COMPANY);
    const byKey = new Map(failed.map((l) => [l.key, l]));
    const suite = await t.request("Ghost suite");
    expect(byKey.get("Ghost suite")).toMatchObject({ code: "PROJECT_NOT_FOUND", reason: suite.last_error });
    expect(byKey.get("Ghost child")).toMatchObject({
      code: "PARENT_FAILED",
      reason: "parent failed: Ghost suite",
    });
    expect(byKey.get("Ghost grandchild")).toMatchObject({
      code: "PARENT_FAILED",
      reason: "parent failed: Ghost child",
    });
    // Nothing about the row that was created.
    expect(lines.some((l) => l.key === "Real one" && l.msg === "push row failed")).toBe(false);
  });
});
