/**
 * The sweep of the suite's leftovers (test/support/leftovers.ts) on the real PostgreSQL and Redis:
 * what a process that is gone left is removed; what a running process made is kept, however old;
 * names without an owner go by age. Each call sweeps only this test's own names (`only`), so
 * the shared servers' other databases and keys are never touched.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepDatabases, sweepRedis } from "../support/leftovers.js";
import {
  HOST,
  OWNER,
  ownerAlive,
  ownerIn,
  startTicks,
  testDatabaseName,
  testPrefix,
} from "../support/owner.js";
import { PG_URL } from "../support/postgres.js";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const HOURS_7 = 7 * 3_600_000;

/** A process that runs until killed, and the owner tag its names would carry. */
async function runner(): Promise<{ child: ChildProcess; owner: string; stop(): Promise<void> }> {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  await once(child, "spawn");
  const ticks = startTicks(child.pid ?? 0);
  if (!ticks) throw new Error("no /proc entry for the child");
  return {
    child,
    owner: `p${child.pid}t${ticks}h${HOST}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    },
  };
}

const hex = () => randomBytes(4).toString("hex");
let admin: pg.Client;
let redis: Redis;
const made = new Set<string>();
const prefixes = new Set<string>();
const mine = (name: string) => made.has(name) || prefixes.has(name);

beforeAll(async () => {
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}:*`);
    if (keys.length) await redis.del(...keys);
  }
  await admin.end();
  redis.disconnect();
});

async function createDatabase(name: string): Promise<void> {
  made.add(name);
  await admin.query(`CREATE DATABASE ${name}`);
}

async function databases(): Promise<string[]> {
  const { rows } = await admin.query<{ datname: string }>(
    "SELECT datname FROM pg_database WHERE datname = ANY($1) ORDER BY datname",
    [[...made]],
  );
  return rows.map((r) => r.datname);
}

describe("the owner written into a name", () => {
  it("is this process, alive; a later process with the same id is not the same owner", () => {
    const me = ownerIn(testDatabaseName());
    expect(me && `p${me.pid}t${me.ticks}h${me.host}`).toBe(OWNER);
    expect(me && ownerAlive(me)).toBe(true);
    expect(ownerAlive({ pid: process.pid, ticks: "1" })).toBe(false);
    expect(ownerIn(testPrefix())).toEqual(me);
    expect(ownerIn(`tas_test_${randomBytes(6).toString("hex")}`)).toBeNull();
    expect(testDatabaseName().length).toBeLessThanOrEqual(63);
  });
});

describe("the sweep of test databases", () => {
  it("drops a gone process's databases, keeps a running one's, and unowned ones by age", async () => {
    const live = await runner();
    const dead = await runner();
    await dead.stop();
    const names = {
      ours: testDatabaseName(),
      live: `tas_test_${live.owner}_${hex()}`,
      dead: `tas_test_${dead.owner}_${hex()}`,
      reused: `tas_test_p${process.pid}t1h${HOST}_${hex()}`,
      unowned: `tas_test_${randomBytes(6).toString("hex")}`,
      // Another machine's run on a shared server: its process ids mean nothing here.
      elsewhere: `tas_test_${dead.owner.replace(/h[0-9a-f]{4}$/, HOST === "ffff" ? "heeee" : "hffff")}_${hex()}`,
    };
    try {
      for (const name of Object.values(names)) await createDatabase(name);
      expect((await sweepDatabases(PG_URL, { only: mine })).sort()).toEqual(
        [names.dead, names.reused].sort(),
      );
      expect(await databases()).toEqual([names.elsewhere, names.live, names.ours, names.unowned].sort());

      // Seven hours on: the unowned and the other machine's are old; what running processes
      // here made is kept however old.
      expect((await sweepDatabases(PG_URL, { only: mine, now: Date.now() + HOURS_7 })).sort()).toEqual(
        [names.elsewhere, names.unowned].sort(),
      );
      expect(await databases()).toEqual([names.live, names.ours].sort());

      // Its process ends (killed, as a worker on a timeout): the next sweep drops the rest.
      await live.stop();
      expect(await sweepDatabases(PG_URL, { only: mine })).toEqual([names.live]);
      expect(await databases()).toEqual([names.ours]);
    } finally {
      await live.stop();
    }
  });

  it("drops a leftover database that still has a connection open", async () => {
    const dead = await runner();
    await dead.stop();
    const name = `tas_test_${dead.owner}_${hex()}`;
    await createDatabase(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const holder = new pg.Client({ connectionString: url.toString() });
    holder.on("error", () => {});
    await holder.connect();
    try {
      expect(await sweepDatabases(PG_URL, { only: mine })).toEqual([name]);
      expect(await databases()).not.toContain(name);
    } finally {
      await holder.end().catch(() => {});
    }
  });
});

describe("the sweep of Redis keys", () => {
  it("deletes a gone process's prefixes, keeps a running one's, and unowned ones by idle time", async () => {
    const live = await runner();
    const dead = await runner();
    await dead.stop();
    const p = {
      ours: testPrefix(),
      live: `tas-test-${live.owner}-${randomUUID()}`,
      dead: `tas-test-${dead.owner}-${randomUUID()}`,
      unowned: `tas-test-${randomUUID()}`,
    };
    try {
      for (const prefix of Object.values(p)) {
        prefixes.add(prefix);
        await redis.set(`${prefix}:push:meta`, "x");
        await redis.set(`${prefix}:sync:id`, "1");
      }
      expect(await sweepRedis(REDIS_URL, { only: mine })).toEqual([p.dead]);
      expect(await redis.keys(`${p.dead}:*`)).toEqual([]);
      expect(await redis.keys(`${p.live}:*`)).toHaveLength(2);
      // Unowned keys just touched are not old; with no age allowed at all they are.
      expect(await sweepRedis(REDIS_URL, { only: mine })).toEqual([]);
      expect(await sweepRedis(REDIS_URL, { only: mine, maxAgeMs: -1 })).toEqual([p.unowned]);
      await live.stop();
      expect(await sweepRedis(REDIS_URL, { only: mine })).toEqual([p.live]);
      expect(await redis.keys(`${p.ours}:*`)).toHaveLength(2);
    } finally {
      await live.stop();
    }
  });
});
