/** Helpers of bench:push: seed files, the raw POST loop, raw addBulk, the simulator's view, Redis cleanup. */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Agent, request } from "undici";

export interface SeedSpec {
  companyId: number;
  projectIds: readonly number[];
  rows: number;
  /** Prefix of every scenario name (and key): unique per phase, so names never clash. */
  tag: string;
}

/** A row's body fields, as the raw loop sends them too. */
function scenarioFields(projectId: number, name: string): Record<string, unknown> {
  return {
    project_id: projectId,
    scenario_name: name,
    source_file: "BenchScenario.java",
    description: "created by bench:push",
    max_execution_time: 300,
    java_test_methods: "run",
  };
}

/**
 * Writes an NDJSON seed file: mostly flat rows, and every 100th row a parent followed by three
 * children (4% of the rows in small trees), spread over the company's projects.
 */
export function writeSeed(path: string, spec: SeedSpec): void {
  const lines: string[] = [];
  let parent: { key: string; projectId: number } | null = null;
  for (let i = 0; i < spec.rows; i++) {
    const inTree = i % 100;
    if (inTree > 3) parent = null;
    const projectId: number = parent?.projectId ?? (spec.projectIds[i % spec.projectIds.length] as number);
    const name = `${spec.tag}-${i}`;
    const row: Record<string, unknown> = { company_id: spec.companyId, ...scenarioFields(projectId, name) };
    if (inTree === 0) {
      row.key = name;
      parent = { key: name, projectId };
    } else if (parent) {
      row.parent_key = parent.key;
    }
    lines.push(JSON.stringify(row));
  }
  writeFileSync(path, `${lines.join("\n")}\n`);
}

export interface RawTarget {
  baseUrl: string;
  token: string;
  companyId: number;
  projectIds: readonly number[];
}

/**
 * The simulator's raw capacity for the create POST: a plain undici loop, `concurrency`
 * requests in flight on as many keep-alive connections, bodies with distinct names.
 */
export async function rawCreateLoop(
  target: RawTarget,
  opts: { requests: number; concurrency: number; tag: string },
): Promise<{ ok: number; ms: number }> {
  const agent = new Agent({ connections: opts.concurrency, keepAliveTimeout: 30_000 });
  const headers = {
    authorization: `Bearer ${target.token}`,
    "current-company-id": String(target.companyId),
    accept: "application/json",
    "content-type": "application/json",
  };
  let next = 0;
  let ok = 0;
  const loop = async () => {
    for (let i = next++; i < opts.requests; i = next++) {
      const projectId = target.projectIds[i % target.projectIds.length] as number;
      const res = await request(`${target.baseUrl}/api/projects/${projectId}/scenarios`, {
        method: "POST",
        dispatcher: agent,
        headers,
        body: JSON.stringify(scenarioFields(projectId, `${opts.tag}-${i}`)),
      });
      await res.body.text();
      if (res.statusCode === 200) ok++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: opts.concurrency }, loop));
  const ms = performance.now() - t0;
  await agent.close();
  return { ok, ms };
}

export interface SimScenario {
  scenario_name: string;
  created_at_ms: number;
}

/** Scenarios the simulator created whose name starts with `tag` (GET __admin/scenarios). */
export async function simScenarios(baseUrl: string, tag: string): Promise<SimScenario[]> {
  const res = await request(`${baseUrl}/__admin/scenarios`);
  const body = (await res.body.json()) as { scenarios: SimScenario[] };
  return body.scenarios.filter((s) => s.scenario_name.startsWith(`${tag}-`));
}

export interface PerSecond {
  /** Highest count of any calendar second, partial ones included. */
  max: number;
  /** Mean over the full seconds (the first and last, partial, seconds left out). */
  average: number;
  fullSeconds: number;
  counts: number[];
}

/** Creations bucketed by calendar second of the simulator's clock (floor(ms / 1000)). */
export function perSecond(createdAtMs: readonly number[]): PerSecond {
  const buckets = new Map<number, number>();
  for (const ms of createdAtMs) {
    const s = Math.floor(ms / 1000);
    buckets.set(s, (buckets.get(s) ?? 0) + 1);
  }
  const seconds = [...buckets.keys()].sort((a, b) => a - b);
  const first = seconds[0] ?? 0;
  const last = seconds[seconds.length - 1] ?? 0;
  const counts: number[] = [];
  for (let s = first; s <= last; s++) counts.push(buckets.get(s) ?? 0);
  const full = counts.slice(1, -1);
  return {
    max: Math.max(0, ...counts),
    average: full.length ? full.reduce((a, b) => a + b, 0) / full.length : 0,
    fullSeconds: full.length,
    counts,
  };
}

/** Deletes every key under `prefix` (SCAN + DEL; never FLUSHALL: the Redis is shared). */
export async function deleteKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [nextCursor, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = nextCursor;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** PushQueue.enqueue's chunking (src/queue/push.ts: ENQUEUE_CHUNK, ENQUEUE_IN_FLIGHT), mirrored. */
const RAW_CHUNK = 1000;
const RAW_IN_FLIGHT = 4;

/**
 * The raw cost of queueing `jobs` jobs: plain BullMQ `addBulk` on a plain ioredis connection
 * under a fresh `prefix`, in chunks as PushQueue.enqueue sends them. The jobs are minimal (data
 * `{ key }`), with the same options shape as a create job, all built before the clock starts.
 */
export async function rawAddBulk(
  redisUrl: string,
  prefix: string,
  jobs: number,
): Promise<{ ms: number; waiting: number }> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue("push", { connection: redis, prefix });
  try {
    await queue.waitUntilReady();
    const all = Array.from({ length: jobs }, (_, i) => {
      const key = `raw-${i}`;
      const jobId = `scn-${createHash("sha1").update(key).digest("hex")}`;
      const opts = {
        jobId,
        attempts: 8,
        backoff: { type: "exponential", delay: 1000 },
        removeOnComplete: true,
        removeOnFail: true,
      };
      return { name: "raw", data: { key }, opts };
    });
    const inFlight = new Set<Promise<unknown>>();
    const t0 = performance.now();
    for (let i = 0; i < all.length; i += RAW_CHUNK) {
      const added: Promise<unknown> = queue
        .addBulk(all.slice(i, i + RAW_CHUNK))
        .finally(() => inFlight.delete(added));
      inFlight.add(added);
      if (inFlight.size >= RAW_IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    const ms = performance.now() - t0;
    return { ms, waiting: await queue.getWaitingCount() };
  } finally {
    await queue.close();
    redis.disconnect();
  }
}
