/** Settling outbox rows: only rows in a state the transition applies to (schema/outbox-states.ts). */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { attemptFails, idUnknown, movable, retryUncertain, writes } from "../../../tables/outbox-states.js";
import { scenarios } from "../../../tables/postgres/index.js";
import type { AttemptKnowledge, ScenarioIdSource, ScenarioRow, Settle, Settled } from "../../port-outbox.js";
import { arg, once, orm } from "../orm.js";
import type { Db, PoolClient } from "../pool.js";
import { takeReadyChildren } from "./ready.js";
import { keyInArray, t } from "./tables.js";

const key = sql.placeholder("key");
/** Every column of `scenarios` as a placeholder of its own name, and null for each (the absent ones). */
const SCENARIO_VALUES = Object.fromEntries(
  Object.keys(getTableColumns(scenarios)).map((k) => [k, sql.placeholder(k)]),
);
const NO_SCENARIO = Object.fromEntries(Object.keys(getTableColumns(scenarios)).map((k) => [k, null]));

/**
 * Records the answer, marks the row created (from `exists` too: the answer carries the id),
 * and queues the children this makes ready. `client` is in a transaction (the group commit's,
 * a savepoint of its own when a write beside it fails): the three statements commit together
 * or not at all.
 */
export async function settleCreated(
  client: PoolClient,
  k: string,
  scenario: ScenarioRow,
  now: string,
): Promise<Settled> {
  await once(client, "upsertScenario", (o) =>
    o
      .insert(scenarios)
      .values(SCENARIO_VALUES as unknown as typeof scenarios.$inferInsert)
      .onConflictDoUpdate({
        target: scenarios.id,
        set: {
          requestKey: sql`excluded.request_key`,
          rawJson: sql`excluded.raw_json`,
          recordedAt: sql`excluded.recorded_at`,
        },
      })
      .prepare("tas_outbox_upsert_scenario"),
  ).execute({ ...NO_SCENARIO, ...scenario });
  const updated = await once(client, "markCreated", (o) =>
    o
      .update(t)
      .set({
        ...writes("create"),
        scenarioId: arg("id"),
        updatedAt: arg("now"),
      })
      .where(and(eq(t.key, key), movable(t, "create")))
      .returning({ key: t.key })
      .prepare("tas_outbox_mark_created"),
  ).execute({ key: k, id: scenario.id, now });
  return { applied: updated.length > 0, ready: await takeReadyChildren(client, k, now) };
}

export async function markExists(db: PoolClient, k: string, message: string, now: string): Promise<boolean> {
  const rows = await once(db, "markExists", (o) =>
    o
      .update(t)
      .set({
        ...writes("exist"),
        lastError: arg("message"),
        updatedAt: arg("now"),
      })
      .where(and(eq(t.key, key), movable(t, "exist")))
      .returning({ key: t.key })
      .prepare("tas_outbox_mark_exists"),
  ).execute({ key: k, message, now });
  return rows.length > 0;
}

export async function markFailed(
  db: PoolClient,
  k: string,
  settle: Settle,
  attempt: AttemptKnowledge,
  now: string,
): Promise<boolean> {
  const rows = await once(db, `markFailed:${attempt}`, (o) =>
    o
      .update(t)
      .set({
        ...writes("fail"),
        ...attemptFails(t, attempt),
        errorCode: arg("code"),
        lastError: arg("message"),
        updatedAt: arg("now"),
      })
      .where(and(eq(t.key, key), movable(t, "fail")))
      .returning({ key: t.key })
      .prepare(`tas_outbox_mark_failed_${attempt}`),
  ).execute({ key: k, code: settle.code, message: settle.message, now });
  return rows.length > 0;
}

/** One statement for every key, whatever their number: the rows still unsettled fail for `settle`. */
export async function failMany(
  db: PoolClient,
  keys: readonly string[],
  settle: Settle,
  now: string,
): Promise<number> {
  if (!keys.length) return 0;
  const rows = await once(db, "failMany", (o) =>
    o
      .update(t)
      .set({
        ...writes("fail"),
        ...attemptFails(t, "none"),
        errorCode: arg("code"),
        lastError: arg("message"),
        updatedAt: arg("now"),
      })
      .where(and(keyInArray, movable(t, "fail")))
      .returning({ key: t.key })
      .prepare("tas_outbox_fail_many"),
  ).execute({ keys: [...keys], code: settle.code, message: settle.message, now });
  return rows.length;
}

export async function block(
  db: PoolClient,
  keys: readonly string[],
  settle: Settle,
  now: string,
): Promise<number> {
  if (!keys.length) return 0;
  const rows = await once(db, "block", (o) =>
    o
      .update(t)
      .set({ ...writes("block"), errorCode: arg("code"), lastError: arg("message"), updatedAt: arg("now") })
      .where(and(keyInArray, movable(t, "block")))
      .returning({ key: t.key })
      .prepare("tas_outbox_block"),
  ).execute({ keys: [...keys], code: settle.code, message: settle.message, now });
  return rows.length;
}

export async function learnId(
  db: PoolClient,
  k: string,
  scenarioId: number,
  source: ScenarioIdSource,
  now: string,
): Promise<boolean> {
  const rows = await orm(db)
    .update(t)
    .set({ scenarioId, scenarioIdSource: source, updatedAt: now })
    .where(and(eq(t.key, k), idUnknown(t)))
    .returning({ key: t.key });
  return rows.length > 0;
}

export async function resetFailed(
  db: Db,
  filter: { code?: string | undefined; key?: string | undefined },
  now: string,
): Promise<string[]> {
  const rows = await orm(db)
    .update(t)
    .set({ ...writes("retry"), uncertain: retryUncertain(t), updatedAt: now })
    .where(
      and(
        movable(t, "retry"),
        filter.code === undefined ? undefined : eq(t.errorCode, filter.code),
        filter.key === undefined ? undefined : eq(t.key, filter.key),
      ),
    )
    .returning({ key: t.key });
  return rows.map((r) => r.key);
}
