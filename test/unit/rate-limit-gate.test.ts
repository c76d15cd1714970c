/** A 429 holds back the company whose token got it, or the whole host: with an injected clock. */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RATE_LIMIT_WAIT_MS,
  OnePerKey,
  RateLimitGate,
  SAME_KEY_WAIT_MS,
} from "../../src/push/gate.js";

function clock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe("RateLimitGate", () => {
  it("holds back only the company that met the 429 (scope company)", () => {
    const c = clock();
    const gate = new RateLimitGate("company", c.now);
    expect(gate.limited(7, 2000)).toBe(2000);
    expect(gate.wait(7)).toBe(2000);
    expect(gate.wait(8)).toBe(0);
    c.advance(1500);
    expect(gate.wait(7)).toBe(500);
    c.advance(500);
    expect(gate.wait(7)).toBe(0);
  });

  it("holds back every company when the limit is the host's (scope host)", () => {
    const c = clock();
    const gate = new RateLimitGate("host", c.now);
    gate.limited(7, 3000);
    expect([gate.wait(7), gate.wait(8), gate.wait(9)]).toEqual([3000, 3000, 3000]);
    c.advance(3000);
    expect(gate.wait(8)).toBe(0);
  });

  it("never shortens a wait already running, and waits a default when Retry-After is missing", () => {
    const c = clock();
    const gate = new RateLimitGate("company", c.now);
    gate.limited(7, 5000);
    expect(gate.limited(7, 1000)).toBe(5000);
    expect(gate.limited(8, null)).toBe(DEFAULT_RATE_LIMIT_WAIT_MS);
  });
});

describe("OnePerKey", () => {
  it("sends a second job of a running key to wait, runs other keys, and frees the key when the job ends", async () => {
    const once = new OnePerKey();
    let finish: () => void = () => {};
    const first = once.run("k", () => new Promise<string>((resolve) => (finish = () => resolve("done"))));
    expect(await once.run("k", async () => "twice")).toMatchObject({
      status: "later",
      delayMs: SAME_KEY_WAIT_MS,
    });
    expect(await once.run("other", async () => "ran")).toBe("ran");
    finish();
    expect(await first).toBe("done");
    await expect(once.run("k", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await once.run("k", async () => "again")).toBe("again");
  });
});
