/** One log line per push row that ends failed or held, rate-limited (push/failure-log.ts). */
import { describe, expect, it } from "vitest";
import type { Logger } from "../../src/log.js";
import { PushFailureLog } from "../../src/push/failure-log.js";
import type { OutboxRow } from "../../src/store/port-outbox.js";

function harness(perWindow = 3, windowMs = 60_000) {
  let now = 1_000_000;
  const lines: { fields: Record<string, unknown>; msg: string }[] = [];
  const logger = {
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }),
  } as unknown as Logger;
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const outbox = {
    get: async (key: string) =>
      ({
        key,
        companyId: 5251,
        errorCode: key.startsWith("child") ? "PARENT_FAILED" : "INVALID_SCENARIO_NAME",
        lastError: `the whole reason of ${key}, however long it is: ${"x".repeat(300)}`,
      }) as unknown as OutboxRow,
  };
  const log = new PushFailureLog(outbox, logger, {
    now: () => now,
    perWindow,
    windowMs,
    schedule: (fn, ms) => {
      const t = { fn, ms, cancelled: false };
      timers.push(t);
      return () => {
        t.cancelled = true;
      };
    },
  });
  return { log, lines, timers, advance: (ms: number) => (now += ms) };
}

describe("PushFailureLog", () => {
  it("logs each failed row once with its key, company, code and whole reason", async () => {
    const h = harness();
    await h.log.failed(["a"]);
    await h.log.failed(["child-1", "child-2"]);
    expect(h.lines.map((l) => [l.msg, l.fields.key, l.fields.companyId, l.fields.code])).toEqual([
      ["push row failed", "a", 5251, "INVALID_SCENARIO_NAME"],
      ["push row failed", "child-1", 5251, "PARENT_FAILED"],
      ["push row failed", "child-2", 5251, "PARENT_FAILED"],
    ]);
    expect(h.lines[0]?.fields.reason).toBe(`the whole reason of a, however long it is: ${"x".repeat(300)}`);
    expect(h.timers).toEqual([]);
  });

  it("logs at info when asked (push --wait, whose summary counts the failures)", async () => {
    const levels: string[] = [];
    const logger = {
      warn: () => levels.push("warn"),
      info: () => levels.push("info"),
    } as unknown as Logger;
    const log = new PushFailureLog({ get: async () => undefined }, logger, { level: "info", perWindow: 1 });
    await log.failed(["a", "b"]);
    log.flush();
    expect(levels).toEqual(["info", "info"]);
  });

  it("logs a held row as held", async () => {
    const h = harness();
    await h.log.held("h1");
    expect(h.lines).toEqual([expect.objectContaining({ msg: "push row held" })]);
    expect(h.lines[0]?.fields).toMatchObject({ key: "h1", companyId: 5251 });
  });

  it("logs the first rows of a window one by one and the rest as one summary at the window's end", async () => {
    const h = harness(3, 60_000);
    const keys = Array.from({ length: 5000 }, (_, i) => `k${i}`);
    await h.log.failed(keys);
    await h.log.held("h1");
    expect(h.lines).toHaveLength(3);
    // One timer, for the window's end.
    expect(h.timers).toHaveLength(1);
    expect(h.timers[0]?.ms).toBe(60_000);
    h.advance(60_000);
    h.timers[0]?.fn();
    expect(h.lines).toHaveLength(4);
    expect(h.lines[3]?.fields).toEqual({ failed: 4997, held: 1, seconds: 60 });
    expect(h.lines[3]?.msg).toBe(
      "4998 more push row(s) ended failed (4997) or held (1) in the last 60 s, not logged one by one: tas-sync push-failures lists them",
    );
    // A new window: rows are logged one by one again.
    await h.log.failed(["next"]);
    expect(h.lines.at(-1)?.fields.key).toBe("next");
  });

  it("writes the pending summary when a row comes after the window, and on flush (a stopping worker)", async () => {
    const h = harness(1, 10_000);
    await h.log.failed(["a", "b"]);
    h.advance(15_000);
    await h.log.failed(["c"]);
    expect(h.lines.map((l) => l.fields.key ?? l.fields.failed)).toEqual(["a", 1, "c"]);
    expect(h.timers[0]?.cancelled).toBe(true);
    await h.log.failed(["d"]);
    h.log.flush();
    expect(h.lines.at(-1)?.fields).toMatchObject({ failed: 1, held: 0 });
    h.log.flush();
    expect(h.lines).toHaveLength(4);
  });
});
