/** The push outbox (scenario_requests) on a real SQLite file: one test per write operation. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SeedRow } from "../../src/seed/index.js";
import { openStore, type Store } from "../../src/store/db.js";
import {
  beginAttempt,
  endAttempt,
  getRequest,
  markCreated,
  markExists,
  markFailed,
  queuedKeysOf,
  recordRows,
  recordSeedRejections,
  resetFailed,
  statusCounts,
  takeReady,
} from "../../src/store/outbox.js";

const T0 = "2025-03-01T10:00:00.000Z";
const T1 = "2025-03-01T10:05:00.000Z";

function row(key: string, parentKey: string | null = null, over: Partial<SeedRow> = {}): SeedRow {
  return {
    key,
    line: 1,
    companyId: 5251,
    projectId: 52511,
    scenarioName: key,
    body: { project_id: 52511, scenario_name: key, source_file: `${key}.java` },
    parentKey,
    ...over,
  };
}

/** suite -> child -> grandchild, plus a lone root. */
const TREE = [row("suite"), row("child", "suite"), row("grandchild", "child"), row("lone")];

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tas-outbox-test-"));
  store = openStore(join(dir, "tas.db"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const status = (key: string) => getRequest(store.sqlite, key)?.status;
let nextId = 1_000_001;
/** Records `key` as created; returns the children that became ready. */
function created(key: string): string[] {
  const id = nextId++;
  return markCreated(
    store.sqlite,
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
}

describe("recordRows", () => {
  it("records new rows as pending, with their batch, file and line", () => {
    const result = recordRows(store.sqlite, [row("a", null, { line: 7 })], "batch-1", "/seed/a.ndjson", T0);
    expect(result).toEqual({
      recorded: 1,
      skipped: { created: 0, exists: 0, failed: 0 },
      changedPayload: [],
    });
    expect(getRequest(store.sqlite, "a")).toMatchObject({
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
    expect(JSON.parse(getRequest(store.sqlite, "a")?.payloadJson ?? "")).toEqual(row("a").body);
  });

  it("takes over unsettled rows into the new batch and skips settled ones, by status", () => {
    recordRows(store.sqlite, [row("p"), row("q"), row("c"), row("e"), row("f")], "batch-1", "/a", T0);
    takeReady(store.sqlite, T0, "batch-1");
    expect(queuedKeysOf(store.sqlite, "batch-1")).toHaveLength(5);
    markCreated(store.sqlite, "c", { id: 42, rawJson: "{}", recordedAt: T0 }, T0);
    markExists(store.sqlite, "e", "lost answer", T0);
    markFailed(store.sqlite, "f", "PROJECT_NOT_FOUND", "nope", T0);
    // "p" back to pending, as after a crash between recording and queueing.
    store.sqlite.prepare("UPDATE scenario_requests SET status = 'pending' WHERE key = 'p'").run();

    const result = recordRows(
      store.sqlite,
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
    expect(getRequest(store.sqlite, "p")).toMatchObject({
      status: "pending",
      batchId: "batch-2",
      sourceFile: "/b",
    });
    expect(getRequest(store.sqlite, "q")).toMatchObject({ status: "queued", batchId: "batch-2" });
    expect(getRequest(store.sqlite, "c")).toMatchObject({ status: "created", batchId: "batch-1" });
    expect(queuedKeysOf(store.sqlite, "batch-2")).toEqual(["q"]);
    expect(statusCounts(store.sqlite, "batch-2")).toEqual({
      pending: 2,
      queued: 1,
      created: 0,
      exists: 0,
      failed: 0,
    });
  });

  it("keeps the recorded payload of a key seen again with another one, and says which", () => {
    recordRows(store.sqlite, [row("a"), row("b")], "batch-1", "/a", T0);
    const changed = row("a", null, {
      body: { project_id: 52511, scenario_name: "a", source_file: "Other.java" },
    });
    const result = recordRows(store.sqlite, [changed, row("b")], "batch-2", "/a", T1);
    expect(result.changedPayload).toEqual(["a"]);
    expect(JSON.parse(getRequest(store.sqlite, "a")?.payloadJson ?? "")).toMatchObject({
      source_file: "a.java",
    });
  });
});

describe("takeReady and markCreated", () => {
  it("queues roots first and each child only once its parent is created", () => {
    recordRows(store.sqlite, TREE, "batch-1", "/a", T0);
    expect(takeReady(store.sqlite, T0, "batch-1").sort()).toEqual(["lone", "suite"]);
    expect(takeReady(store.sqlite, T0, "batch-1")).toEqual([]);
    // Children of a parent that is only queued are not taken.
    expect(status("child")).toBe("pending");
    expect(created("suite")).toEqual(["child"]);
    expect(status("grandchild")).toBe("pending");
    expect(created("child")).toEqual(["grandchild"]);
    expect(statusCounts(store.sqlite)).toMatchObject({ pending: 0, queued: 2, created: 2 });
  });

  it("takes only the given batch's rows, and a pending child of a created parent", () => {
    recordRows(store.sqlite, [row("suite")], "batch-1", "/a", T0);
    takeReady(store.sqlite, T0);
    created("suite");
    recordRows(store.sqlite, [row("child", "suite"), row("other")], "batch-2", "/b", T1);
    recordRows(store.sqlite, [row("elsewhere")], "batch-3", "/c", T1);
    expect(takeReady(store.sqlite, T1, "batch-2").sort()).toEqual(["child", "other"]);
    expect(status("elsewhere")).toBe("pending");
  });

  it("fails a pending row whose parent failed or exists instead of leaving it pending forever", () => {
    recordRows(
      store.sqlite,
      [row("bad"), row("kid", "bad"), row("ghost"), row("orphan", "ghost")],
      "b",
      "/a",
      T0,
    );
    takeReady(store.sqlite, T0, "b");
    markFailed(store.sqlite, "bad", "PROJECT_NOT_FOUND", "no project", T0);
    markExists(store.sqlite, "ghost", "lost answer", T0);
    resetFailed(store.sqlite, { key: "kid" }, T1);
    expect(status("kid")).toBe("pending");
    expect(status("orphan")).toBe("pending");

    expect(takeReady(store.sqlite, T1, "b")).toEqual([]);
    expect(getRequest(store.sqlite, "kid")).toMatchObject({ status: "failed", errorCode: "PARENT_FAILED" });
    expect(getRequest(store.sqlite, "orphan")).toMatchObject({
      status: "failed",
      errorCode: "PARENT_ID_UNKNOWN",
    });
  });
});

describe("attempts", () => {
  it("writes each attempt ahead, so the next one knows an earlier answer may be lost", () => {
    recordRows(store.sqlite, [row("a")], "b", "/a", T0);
    takeReady(store.sqlite, T0);
    expect(beginAttempt(store.sqlite, "a", T0)).toBe(false);
    expect(getRequest(store.sqlite, "a")).toMatchObject({ attempts: 1, inFlight: true, uncertain: false });
    // A crash here leaves in_flight set: the next attempt is uncertain.
    expect(beginAttempt(store.sqlite, "a", T1)).toBe(true);
    expect(getRequest(store.sqlite, "a")).toMatchObject({ attempts: 2, inFlight: true, uncertain: true });
  });

  it("forgets an attempt that surely did not reach the server, not one that may have", () => {
    recordRows(store.sqlite, [row("sure"), row("unsure")], "b", "/a", T0);
    for (const key of ["sure", "unsure"]) beginAttempt(store.sqlite, key, T0);
    endAttempt(store.sqlite, "sure", "sure", "CONNECTION_FAILED", "refused", T0);
    endAttempt(store.sqlite, "unsure", "unknown", "TIMEOUT", "no answer", T0);
    expect(getRequest(store.sqlite, "sure")).toMatchObject({
      inFlight: false,
      errorCode: "CONNECTION_FAILED",
    });
    expect(getRequest(store.sqlite, "unsure")).toMatchObject({ inFlight: true, lastError: "no answer" });
    expect(beginAttempt(store.sqlite, "sure", T1)).toBe(false);
    expect(beginAttempt(store.sqlite, "unsure", T1)).toBe(true);
  });

  it("keeps a crashed attempt's mark when a later run fails before sending anything", () => {
    recordRows(store.sqlite, [row("a"), row("b")], "b", "/a", T0);
    takeReady(store.sqlite, T0);
    for (const key of ["a", "b"]) beginAttempt(store.sqlite, key, T0); // then: kill -9
    // The next run cannot even get a token: nothing of its own was sent.
    endAttempt(store.sqlite, "a", "none", "INVALID_CLIENT", "token refused", T1);
    expect(beginAttempt(store.sqlite, "a", T1)).toBe(true);
    markFailed(store.sqlite, "b", "INVALID_CLIENT", "token refused", T1, "none");
    expect(getRequest(store.sqlite, "b")).toMatchObject({
      status: "failed",
      inFlight: false,
      uncertain: true,
    });
  });

  it("does not make a sure failure of our own attempt uncertain", () => {
    recordRows(store.sqlite, [row("a")], "b", "/a", T0);
    takeReady(store.sqlite, T0);
    beginAttempt(store.sqlite, "a", T0);
    markFailed(store.sqlite, "a", "INVALID_SCENARIO_NAME", "taken", T0, "sure");
    expect(getRequest(store.sqlite, "a")).toMatchObject({
      status: "failed",
      inFlight: false,
      uncertain: false,
    });
  });

  it("lets no duplicate run of a job overwrite a settled row, but lets an answer with the id upgrade exists", () => {
    recordRows(store.sqlite, [row("a"), row("b")], "b", "/a", T0);
    takeReady(store.sqlite, T0);
    created("a");
    expect(markExists(store.sqlite, "a", "clash", T1)).toBe(false);
    expect(markFailed(store.sqlite, "a", "X", "late failure", T1)).toBe(0);
    expect(getRequest(store.sqlite, "a")).toMatchObject({ status: "created" });
    expect(markExists(store.sqlite, "b", "clash", T1)).toBe(true);
    created("b");
    expect(getRequest(store.sqlite, "b")).toMatchObject({ status: "created" });
  });

  it("records a created row with its scenario and clears the in-flight mark", () => {
    recordRows(store.sqlite, [row("a")], "b", "/a", T0);
    beginAttempt(store.sqlite, "a", T0);
    const id = nextId;
    expect(created("a")).toEqual([]);
    expect(getRequest(store.sqlite, "a")).toMatchObject({
      status: "created",
      scenarioId: id,
      inFlight: false,
    });
    const stored = store.sqlite
      .prepare("SELECT request_key, scenario_name FROM scenarios WHERE id = ?")
      .get(id);
    expect(stored).toEqual({ request_key: "a", scenario_name: "a" });
  });
});

describe("markFailed and resetFailed", () => {
  it("fails every unsettled descendant, down to grandchildren, with PARENT_FAILED", () => {
    recordRows(store.sqlite, [...TREE, row("sibling", "suite")], "b", "/a", T0);
    takeReady(store.sqlite, T0);
    expect(markFailed(store.sqlite, "suite", "PROJECT_NOT_FOUND", "no project", T1)).toBe(4);
    expect(getRequest(store.sqlite, "suite")).toMatchObject({
      status: "failed",
      errorCode: "PROJECT_NOT_FOUND",
    });
    for (const key of ["child", "grandchild", "sibling"]) {
      expect(getRequest(store.sqlite, key)).toMatchObject({
        status: "failed",
        errorCode: "PARENT_FAILED",
        attempts: 0,
      });
    }
    expect(getRequest(store.sqlite, "grandchild")?.lastError).toBe("parent failed: child");
    expect(status("lone")).toBe("queued");
  });

  it("leaves settled descendants alone", () => {
    recordRows(store.sqlite, TREE, "b", "/a", T0);
    takeReady(store.sqlite, T0);
    created("suite");
    created("child");
    expect(markFailed(store.sqlite, "grandchild", "INVALID_REQUEST", "bad", T1)).toBe(1);
    expect(status("child")).toBe("created");
  });

  it("keeps an in-flight attempt's doubt when the row fails, so a retry's clash means exists", () => {
    recordRows(store.sqlite, [row("a")], "b", "/a", T0);
    expect(beginAttempt(store.sqlite, "a", T0)).toBe(false);
    markFailed(store.sqlite, "a", "TIMEOUT", "gave up after 1 attempts", T0);
    expect(getRequest(store.sqlite, "a")).toMatchObject({
      status: "failed",
      inFlight: false,
      uncertain: true,
    });
    resetFailed(store.sqlite, {}, T1);
    expect(beginAttempt(store.sqlite, "a", T1)).toBe(true);
  });

  it("puts failed rows back to pending, all of them or by code or key", () => {
    recordRows(store.sqlite, [row("a"), row("b"), row("c"), row("ok")], "b", "/a", T0);
    markFailed(store.sqlite, "a", "PROJECT_NOT_FOUND", "x", T0);
    markFailed(store.sqlite, "b", "INVALID_SCENARIO_NAME", "x", T0);
    markFailed(store.sqlite, "c", "INVALID_SCENARIO_NAME", "x", T0);
    created("ok");
    expect(resetFailed(store.sqlite, { code: "PROJECT_NOT_FOUND" }, T1)).toEqual(["a"]);
    expect(getRequest(store.sqlite, "a")).toMatchObject({
      status: "pending",
      errorCode: null,
      lastError: null,
    });
    expect(resetFailed(store.sqlite, { key: "c" }, T1)).toEqual(["c"]);
    expect(status("b")).toBe("failed");
    expect(resetFailed(store.sqlite, {}, T1)).toEqual(["b"]);
    expect(resetFailed(store.sqlite, {}, T1)).toEqual([]);
    expect(status("ok")).toBe("created");
  });
});

describe("recordSeedRejections", () => {
  it("stores each rejected row with its batch, file, line, field and reason", () => {
    recordSeedRejections(
      store.sqlite,
      "b",
      "/a.ndjson",
      [
        { line: 3, key: "x", field: "source_file", reason: "missing required field" },
        { line: 9, key: null, field: null, reason: "not JSON" },
      ],
      T0,
    );
    expect(
      store.sqlite
        .prepare("SELECT batch_id, source_file, line, key, field, reason FROM seed_rejections")
        .all(),
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
