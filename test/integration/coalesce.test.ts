/** coalesceWrites on a real Redis: the commands of one turn leave in one socket write. */
import type { Socket } from "node:net";
import { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { coalesceWrites } from "../../src/queue/coalesce.js";
import { testPrefix } from "../support/owner.js";
import { REDIS_URL } from "./push-harness.js";

let redis: Redis;
const prefix = testPrefix();

beforeEach(async () => {
  redis = coalesceWrites(new Redis(REDIS_URL, { maxRetriesPerRequest: 1 }));
  await redis.ping();
});
afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Counts the socket's writes to the kernel (one per write or writev call). */
function countWrites(socket: Socket): { writes: number } {
  const seen = { writes: 0 };
  const s = socket as unknown as Record<"_write" | "_writev", (...args: unknown[]) => unknown>;
  for (const name of ["_write", "_writev"] as const) {
    const original = s[name].bind(socket);
    s[name] = (...args: unknown[]) => {
      seen.writes++;
      return original(...args);
    };
  }
  return seen;
}

describe("coalesceWrites", () => {
  it("sends the commands of one turn in one socket write, in order", async () => {
    const seen = countWrites(redis.stream as Socket);
    const replies = Promise.all([
      redis.set(`${prefix}:a`, "1"),
      redis.incr(`${prefix}:a`),
      redis.incr(`${prefix}:a`),
      redis.get(`${prefix}:a`),
    ]);
    expect(seen.writes).toBe(0); // held until the turn ends
    expect(await replies).toEqual(["OK", 2, 3, "3"]);
    expect(seen.writes).toBe(1);
  });

  it("writes each turn's commands in that turn", async () => {
    const seen = countWrites(redis.stream as Socket);
    await redis.set(`${prefix}:b`, "x");
    await redis.get(`${prefix}:b`);
    expect(seen.writes).toBe(2);
  });

  it("keeps working on the new socket after a reconnect", async () => {
    const before = redis.stream;
    redis.disconnect(true);
    await new Promise<void>((resolve) => redis.once("ready", () => resolve()));
    expect(redis.stream).not.toBe(before);
    const seen = countWrites(redis.stream as Socket);
    expect(await Promise.all([redis.set(`${prefix}:c`, "1"), redis.get(`${prefix}:c`)])).toEqual(["OK", "1"]);
    expect(seen.writes).toBe(1);
  });
});
