/** What every chaos experiment gets, and what it gives back. */
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Databases, StoreName } from "./support/db.js";
import { REDIS_URL } from "./support/db.js";
import type { Random, Simulator } from "./support/proc.js";

export interface Sizes {
  /** Plans of the sync-kill experiment. */
  plans: number;
  syncKills: number;
  pushRows: number;
  pushKills: number;
  /** Plans per company and rows of the faults experiment. */
  faultPlans: number;
  faultRows: number;
  writerRounds: number;
  /** Rows pushed through the daemon in the Redis-restart experiment. */
  redisRows: number;
}

export const FULL: Sizes = {
  plans: 20_000,
  syncKills: 20,
  pushRows: 5_000,
  pushKills: 10,
  faultPlans: 2_000,
  faultRows: 1_000,
  writerRounds: 8,
  redisRows: 400,
};

export const QUICK: Sizes = {
  plans: 2_000,
  syncKills: 5,
  pushRows: 500,
  pushKills: 3,
  faultPlans: 300,
  faultRows: 150,
  writerRounds: 3,
  redisRows: 150,
};

export interface Ctx {
  store: StoreName;
  dbs: Databases;
  sizes: Sizes;
  rnd: Random;
  /** A progress line on stderr (not part of the figures). */
  note(msg: string): void;
  /** A BullMQ prefix of this experiment; its keys are deleted afterwards. */
  prefix(): string;
  /** Writes a config file into the experiment's temp dir; returns its path. */
  writeConfig(name: string, config: Record<string, unknown>): string;
  path(name: string): string;
}

export interface Outcome {
  ok: boolean;
  /** The one figure line. */
  figure: string;
  problems: string[];
}

export interface Experiment {
  name: string;
  summary: string;
  run(ctx: Ctx): Promise<Outcome>;
}

export function makeCtx(
  store: StoreName,
  dbs: Databases,
  sizes: Sizes,
  rnd: Random,
  prefixes: string[],
  note: (msg: string) => void,
): Ctx {
  return {
    store,
    dbs,
    sizes,
    rnd,
    note,
    prefix() {
      const p = `tas-chaos-${randomUUID()}`;
      prefixes.push(p);
      return p;
    },
    writeConfig(name, config) {
      const path = join(dbs.dir, name);
      writeFileSync(path, JSON.stringify(config, null, 2));
      return path;
    },
    path: (name) => join(dbs.dir, name),
  };
}

/** Config for the simulator with static tokens (the usual base of every experiment). */
export function simConfig(sim: Simulator, database: string, over: Record<string, unknown> = {}) {
  return {
    baseUrl: sim.baseUrl,
    database,
    redisUrl: REDIS_URL,
    logLevel: "info",
    http: { timeoutMs: 30_000, maxAttempts: 5, maxRequestsPerSecond: 2000, connections: 16 },
    companies: sim.companies.map((c) => ({
      id: c.id,
      reportIds: c.reportIds,
      auth: { token: c.staticToken },
    })),
    ...over,
  };
}
