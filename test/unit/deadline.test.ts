/** Waiting at most a while, without leaving a late rejection unhandled. */
import { describe, expect, it, vi } from "vitest";
import { valueWithin, withDeadline } from "../../src/deadline.js";

describe("withDeadline", () => {
  it("gives the value, the error, or says it did not settle in time", async () => {
    expect(await withDeadline(Promise.resolve(3), 1000)).toEqual({ settled: true, value: 3 });
    const err = new Error("no");
    expect(await withDeadline(Promise.reject(err), 1000)).toEqual({ settled: true, error: err });
    expect(await withDeadline(new Promise(() => {}), 5)).toEqual({ settled: false });
  });

  it("handles a rejection that comes after the deadline (no unhandled rejection)", async () => {
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    let reject: (e: Error) => void = () => {};
    const late = new Promise<number>((_, r) => {
      reject = r;
    });
    expect(await valueWithin(late, 5)).toBeUndefined();
    reject(new Error("Connection is closed."));
    await new Promise((r) => setTimeout(r, 20));
    process.off("unhandledRejection", unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });
});
