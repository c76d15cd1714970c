/** Real BullMQ queues under a fresh prefix, and a quiet server started on port 0, for server tests. */
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { Metrics } from "../../src/metrics.js";
import { JOB_STATES } from "../../src/queue/inspect.js";
import { Secret } from "../../src/secret.js";
import { type RunningServer, type ServerOptions, startServer } from "../../src/server/index.js";
import { bounded } from "../support/bounded.js";
import { testPrefix } from "../support/owner.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
export const USER = "ops";
export const PASSWORD = "correct horse battery staple";

export interface TestQueues {
  queues: Queue[];
  prefix: string;
  /** Closes the queues and deletes every key under the prefix. */
  cleanup(): Promise<void>;
}

export async function testQueues(names: string[]): Promise<TestQueues> {
  const prefix = testPrefix();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queues = names.map((name) => new Queue(name, { connection: redis, prefix }));
  await Promise.all(queues.map((q) => q.waitUntilReady()));
  return {
    queues,
    prefix,
    async cleanup() {
      await bounded("the test queues", () => Promise.all(queues.map((q) => q.close())));
      await bounded(`the Redis keys under ${prefix}`, async () => {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
      });
      redis.disconnect();
    },
  };
}

/** A server over the given queues, with metrics that count their jobs; overrides win. */
export function startTestServer(queues: Queue[], over: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const metrics = new Metrics({
    freshness: async () => [],
    queueCounts: () =>
      Promise.all(queues.map(async (q) => ({ queue: q.name, counts: await q.getJobCounts(...JOB_STATES) }))),
  });
  return startServer({
    host: "127.0.0.1",
    port: 0,
    metrics,
    readiness: async () => ({ ok: true, checks: { redis: { ok: true } } }),
    queues,
    dashboardWritable: false,
    logger: pino({ level: "silent" }),
    ...over,
  });
}

export const withAuth = { auth: { username: USER, password: new Secret(PASSWORD) } };

export function basic(user: string, password: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` };
}
