/** Shared by bench:outbox's two stores: the figures' sizes, the pairs it measures, the rows it records. */
import { getTableColumns, sql, type Table } from "drizzle-orm";
import type { NewRequest } from "../src/store/port-outbox.js";

export const JOB_ROWS = Number(process.env.BENCH_OUTBOX_ROWS ?? 4_000);
export const RECORD_ROWS = Number(process.env.BENCH_OUTBOX_RECORD_ROWS ?? 20_000);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const PER_TX = 20;
/** The builder is kept unless it costs more than this over hand-written SQL. */
export const MARGIN = 0.1;
export const NOW = "2026-01-01T00:00:00.000Z";

export interface Pair {
  what: string;
  /** How the adapter runs it now. */
  uses: "drizzle" | "driver";
  /** Why the adapter runs it as it does whatever the figures (a value drizzle gets wrong). */
  because?: string;
  drizzle: () => Promise<void>;
  driver: () => Promise<void>;
  /** Fresh data before each round. */
  reset: () => Promise<void>;
  ops: number;
}

export function rows(n: number, tag: string): NewRequest[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `${tag}-${i}`,
    companyId: 5251,
    projectId: 52511,
    scenarioName: `${tag}-${i}`,
    payloadJson: JSON.stringify({ project_id: 52511, scenario_name: `${tag}-${i}`, source_file: "a.java" }),
    parentKey: null,
    line: i + 1,
  }));
}

export const scenario = (key: string, id: number) => ({
  id,
  requestKey: key,
  companyId: 5251,
  projectId: 52511,
  scenarioName: key,
  rawJson: `{"id":${id},"scenario_name":"${key}"}`,
  recordedAt: NOW,
});

export async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** Every column of `table` as a placeholder of its own name. */
export function placeholders(table: Table): Record<string, unknown> {
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((k) => [k, sql.placeholder(k)]));
}

export const upsertSet = {
  requestKey: sql`excluded.request_key`,
  rawJson: sql`excluded.raw_json`,
  recordedAt: sql`excluded.recorded_at`,
};
