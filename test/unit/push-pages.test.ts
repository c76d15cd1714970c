/** eachPage (push/settle.ts): every page handed on once, in order, one page read ahead at most. */
import { describe, expect, it } from "vitest";
import { eachPage, READY_PAGE } from "../../src/push/settle.js";

/** A source of `n` keys, READY_PAGE at a time, after a key; it notes each read. */
function source(n: number, log: string[]) {
  const keys = Array.from({ length: n }, (_, i) => `k${String(i).padStart(7, "0")}`);
  return (after: string | undefined) => {
    const from = after === undefined ? 0 : keys.indexOf(after) + 1;
    log.push(`read ${from}`);
    return Promise.resolve(keys.slice(from, from + READY_PAGE));
  };
}

describe("eachPage", () => {
  it("hands on every key once, in order, reading at most one page ahead of the one handed on", async () => {
    const log: string[] = [];
    const handed: string[] = [];
    let handing = 0;
    const n = 2 * READY_PAGE + 7;
    const count = await eachPage(source(n, log), async (keys) => {
      handing++;
      log.push(`hand ${keys.length}`);
      await new Promise((r) => setImmediate(r));
      handed.push(...keys);
      handing--;
      expect(handing).toBe(0);
    });
    expect(count).toBe(n);
    expect(handed).toHaveLength(n);
    expect(new Set(handed).size).toBe(n);
    expect(log).toEqual([
      "read 0",
      `hand ${READY_PAGE}`,
      `read ${READY_PAGE}`,
      `hand ${READY_PAGE}`,
      `read ${2 * READY_PAGE}`,
      "hand 7",
    ]);
  });

  it("reads one empty page after a full last one, and hands on nothing for it", async () => {
    const log: string[] = [];
    const pages: number[] = [];
    expect(await eachPage(source(READY_PAGE, log), async (k) => void pages.push(k.length))).toBe(READY_PAGE);
    expect(pages).toEqual([READY_PAGE]);
    expect(log).toEqual(["read 0", `read ${READY_PAGE}`]);
  });

  it("fails with the hand-on's error, and reads no page past the one read ahead", async () => {
    const log: string[] = [];
    const failing = eachPage(source(5 * READY_PAGE, log), async () => {
      throw new Error("redis went away");
    });
    await expect(failing).rejects.toThrow("redis went away");
    expect(log).toEqual(["read 0", `read ${READY_PAGE}`]);
  });
});
