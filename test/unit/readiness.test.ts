/** Whether a worker is consuming, judged by what it does (pure). */
import { describe, expect, it } from "vitest";
import { consuming, STARVING_MS } from "../../src/daemon/readiness.js";

const NOW = 1_000_000;

describe("consuming", () => {
  it.each([
    ["no job waiting", { active: 0, concurrency: 4, lastTakenAt: null }, 0, false, true],
    ["every slot busy", { active: 4, concurrency: 4, lastTakenAt: NOW - 10 * STARVING_MS }, 9, false, true],
    ["a job taken recently", { active: 1, concurrency: 4, lastTakenAt: NOW - 1000 }, 3, false, true],
    ["a paused queue", { active: 0, concurrency: 4, lastTakenAt: null }, 50, true, true],
    [
      "jobs waiting, free slots, none taken for long",
      { active: 0, concurrency: 4, lastTakenAt: NOW - STARVING_MS - 1 },
      2,
      false,
      false,
    ],
    ["jobs waiting and none ever taken", { active: 0, concurrency: 1, lastTakenAt: null }, 1, false, false],
  ])("%s", (_name, c, waiting, paused, ok) => {
    expect(consuming(c, waiting, paused, NOW).ok).toBe(ok);
  });

  it("says what is wrong", () => {
    expect(consuming({ active: 0, concurrency: 4, lastTakenAt: NOW - 20_000 }, 3, false, NOW)).toEqual({
      ok: false,
      detail: "3 job(s) waiting and none taken for 20 s",
    });
  });
});
