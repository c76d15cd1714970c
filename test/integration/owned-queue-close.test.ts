/**
 * A queue closed at once, while BullMQ still reads Redis's version on its connection (a command
 * that fails before it touches the queue: set-parent-id with the wrong key), leaves no unhandled
 * rejection behind. BullMQ drops its connection's listeners when it closes; the version read,
 * cut off by the disconnect that follows, then had nobody to report to ("Connection is closed."
 * as an unhandled rejection in CI).
 */
import { once } from "node:events";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/log.js";
import { OwnedQueue } from "../../src/queue/owned-queue.js";
import { testPrefix } from "../support/owner.js";
import { freePort } from "../support/redis-server.js";
import { REDIS_URL } from "./push-harness.js";

const prefix = testPrefix();
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const logger = createLogger({ level: "silent", pretty: false });
const config = (redisUrl: string) =>
  parseConfig(
    {
      baseUrl: "http://127.0.0.1:9",
      database: ":memory:",
      auth: { token: "t" },
      companies: [{ id: 5251, every: "1m" }],
      redisUrl,
      queuePrefix: prefix,
    },
    "(test)",
    {},
  );
const cfg = config(REDIS_URL);

/** The queue's connections, to wait until they have ended. */
class Watched extends OwnedQueue {
  /** Once the connection is up: BullMQ then asks Redis for its version. */
  async connected(): Promise<void> {
    if (this.redis.status !== "ready") await once(this.redis, "ready");
  }
  async ended(): Promise<void> {
    if (this.redis.status !== "end") await once(this.redis, "end");
  }
  start(): void {
    this.runWorker(async () => null, { concurrency: 1, autorun: false });
  }
}

const rejections: unknown[] = [];
const note = (reason: unknown) => rejections.push(reason);
beforeEach(() => {
  rejections.length = 0;
  process.on("unhandledRejection", note);
});
afterEach(() => {
  process.off("unhandledRejection", note);
});
afterAll(async () => {
  const left = await redis.keys(`${prefix}:*`);
  if (left.length) await redis.del(...left);
  redis.disconnect();
});

/** Lets rejections made by the connections' last events surface (a few turns of the loop). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}

describe("a queue closed as soon as it is opened", () => {
  it.each([
    ["alone", false],
    ["with its worker", true],
  ])("%s, leaves no unhandled rejection", async (_, worker) => {
    for (let i = 0; i < 5; i++) {
      const q = new Watched("push", cfg, logger);
      if (worker) q.start();
      await q.connected();
      await q.close();
      await q.ended();
    }
    await settle();
    expect(rejections.map(String)).toEqual([]);
  });

  it("where no Redis answers, closes, and leaves no unhandled rejection", async () => {
    const away = config(`redis://127.0.0.1:${await freePort()}`);
    for (let i = 0; i < 2; i++) {
      const q = new Watched("push", away, logger);
      q.start();
      // Its connections never opened: they end within close() (no 'end' event to wait for).
      await q.close();
    }
    await settle();
    expect(rejections.map(String)).toEqual([]);
  });
});
