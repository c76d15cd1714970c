import { describe, expect, it } from "vitest";
import { backoffMs, RateLimiter } from "../../src/api/rate-limiter.js";

/** A clock that only moves when told to, and a sleep that records its waits and advances the clock. */
function fakeTime(start = 1_000_000) {
  let t = start;
  const waits: number[] = [];
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    sleep: async (ms: number) => {
      waits.push(ms);
      t += ms;
    },
    waits,
  };
}

describe("RateLimiter", () => {
  it.each([
    [1, 1000],
    [4, 250],
    [20, 50],
    [1000, 1],
  ])("at %i per second, spaces back-to-back callers %i ms apart", async (perSecond, interval) => {
    const time = fakeTime();
    const limiter = new RateLimiter(perSecond, time.now, time.sleep);
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await limiter.acquire();
      starts.push(time.now());
    }
    const gaps = starts.slice(1).map((s, i) => s - (starts[i] as number));
    expect(gaps).toEqual([interval, interval, interval, interval]);
    expect(time.waits).toEqual([interval, interval, interval, interval]);
  });

  it.each([
    // 10/s: every caller after the first waits its turn, 100 ms apart.
    ["queues concurrent callers one interval after another", 10, 5, [100, 200, 300, 400]],
    // 4000/s: slots 0, 0.25, 0.5 and 0.75 ms go at once (a timer cannot wait less than 1 ms).
    ["above 1000/s, sleeps only once the schedule is 1 ms or more ahead", 4000, 8, [1, 1.25, 1.5, 1.75]],
  ])("%s", async (_name, perSecond, callers, expected) => {
    const waits: number[] = [];
    const limiter = new RateLimiter(
      perSecond,
      () => 5_000,
      async (ms) => {
        waits.push(ms);
      },
    );
    await Promise.all(Array.from({ length: callers }, () => limiter.acquire()));
    expect(waits).toEqual(expected);
  });

  it("does not make a caller wait after a quiet period", async () => {
    const time = fakeTime();
    const limiter = new RateLimiter(2, time.now, time.sleep);
    await limiter.acquire();
    time.advance(10_000);
    await limiter.acquire();
    expect(time.waits).toEqual([]);
  });

  it("makes a caller arriving mid-interval wait only the remainder", async () => {
    const time = fakeTime();
    const limiter = new RateLimiter(10, time.now, time.sleep);
    await limiter.acquire();
    time.advance(30);
    await limiter.acquire();
    expect(time.waits).toEqual([70]);
  });
});

describe("backoffMs", () => {
  const base = 250;
  const cap = 15_000;
  const expected = (attempt: number) => Math.min(cap, base * 2 ** Math.max(0, attempt - 1));

  it.each([1, 2, 3, 4, 5, 6, 7, 8, 12, 30])("keeps attempt %i within [exp/2, exp], capped", (attempt) => {
    const exp = expected(attempt);
    expect(exp).toBeLessThanOrEqual(cap);
    expect(backoffMs(attempt, () => 0, base, cap)).toBe(exp / 2);
    expect(backoffMs(attempt, () => 0.999999, base, cap)).toBe(Math.round(exp / 2 + 0.999999 * (exp / 2)));
    for (let i = 0; i < 50; i++) {
      const wait = backoffMs(attempt);
      expect(wait).toBeGreaterThanOrEqual(exp / 2);
      expect(wait).toBeLessThanOrEqual(exp);
    }
  });

  it("doubles from the base and stops at the cap", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffMs(a, mid, 100, 1000))).toEqual([
      75, 150, 300, 600, 750, 750, 750, 750,
    ]);
  });

  it("treats attempt 0 like attempt 1", () => {
    expect(backoffMs(0, () => 0)).toBe(backoffMs(1, () => 0));
  });
});
