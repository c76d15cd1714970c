/**
 * `status` only looks at the queues: reading their state writes nothing to Redis (BullMQ writes
 * a queue's meta key for every Queue it opens unless told not to).
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/log.js";
import { inspectQueues } from "../../src/queue/inspect.js";
import { OwnedQueue } from "../../src/queue/owned-queue.js";
import { testPrefix } from "../support/owner.js";
import { REDIS_URL } from "./push-harness.js";

const prefix = testPrefix();
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const keys = () => redis.keys(`${prefix}:*`);
const logger = createLogger({ level: "silent", pretty: false });
const cfg = parseConfig(
  {
    baseUrl: "http://127.0.0.1:9",
    database: ":memory:",
    auth: { token: "t" },
    companies: [{ id: 5251, every: "1m" }],
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
  },
  "(test)",
  {},
);

afterAll(async () => {
  const left = await keys();
  if (left.length) await redis.del(...left);
  redis.disconnect();
});

describe("status's look at the queues", () => {
  it("writes no key to Redis, where nothing exists yet", async () => {
    const seen = await inspectQueues(cfg, logger);
    expect(seen.queues.map((q) => q.name).sort()).toEqual(["push", "sync"]);
    expect(await keys()).toEqual([]);
  });

  it("changes no key of queues that exist", async () => {
    const sync = new OwnedQueue("sync", cfg, logger);
    try {
      await sync.queue.waitUntilReady();
      await sync.queue.pause();
    } finally {
      await sync.close();
    }
    const dump = async () => {
      const out: Record<string, unknown> = {};
      for (const k of (await keys()).sort()) out[k] = await redis.dump(k);
      return out;
    };
    const before = await dump();
    expect(Object.keys(before).length).toBeGreaterThan(0);
    const seen = await inspectQueues(cfg, logger);
    expect(seen.queues.find((q) => q.name === "sync")?.paused).toBe(true);
    expect(await dump()).toEqual(before);
  });
});
