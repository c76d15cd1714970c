/** A 429 holds back the company whose token got it, or the whole host: with an injected clock. */
import { describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMIT_WAIT_MS, RateLimitGate } from "../../src/push/gate.js";

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
