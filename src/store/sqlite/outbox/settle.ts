/** Settling outbox rows: only rows in a state the transition applies to (schema/outbox-states.ts). */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { attemptFails, idUnknown, movable, retryUncertain, writes } from "../../../tables/outbox-states.js";
import type { AttemptKnowledge, ScenarioIdSource, ScenarioRow, Settle, Settled } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { takeReadyChildren } from "./ready.js";
import { arg, atomically, once, orm, rendered, scenarios, t } from "./tables.js";

const key = sql.placeholder("key");

/** Every column of `scenarios` as a placeholder of its own name. */
const SCENARIO_VALUES = Object.fromEntries(
  Object.keys(getTableColumns(scenarios)).map((k) => [k, sql.placeholder(k)]),
);

/**
 * Records the answer, marks the row created (from `exists` too: the answer carries the id),
 * and queues the children this makes ready: one transaction (a savepoint inside the group
 * commit's), so a crash or a failing statement never leaves a created row whose ready children
 * are not queued, nor queued children of a row not recorded as created.
 */
export function settleCreated(sqlite: Sqlite, k: string, scenario: ScenarioRow, at: string): Settled {
  // Run by the driver: drizzle would store a null boolean of the answer as false (rendered.ts).
  const insertScenario = rendered(sqlite, "upsertScenario", (db) =>
    db
      .insert(scenarios)
      .values(SCENARIO_VALUES as unknown as typeof scenarios.$inferInsert)
      .onConflictDoUpdate({
        target: scenarios.id,
        set: {
          requestKey: sql`excluded.request_key`,
          rawJson: sql`excluded.raw_json`,
          recordedAt: sql`excluded.recorded_at`,
        },
      }),
  );
  const update = once(sqlite, "markCreated", (db) =>
    db
      .update(t)
      .set({
        ...writes("create"),
        scenarioId: arg("id"),
        updatedAt: arg("now"),
      })
      .where(and(eq(t.key, key), movable(t, "create")))
      .prepare(),
  );
  return atomically(sqlite, () => {
    insertScenario.run(scenario);
    const applied = update.run({ key: k, id: scenario.id, now: at }).changes > 0;
    return { applied, ready: takeReadyChildren(sqlite, k, at) };
  });
}

export function markExists(sqlite: Sqlite, k: string, message: string, at: string): boolean {
  return (
    once(sqlite, "markExists", (db) =>
      db
        .update(t)
        .set({
          ...writes("exist"),
          lastError: arg("message"),
          updatedAt: arg("now"),
        })
        .where(and(eq(t.key, key), movable(t, "exist")))
        .prepare(),
    ).run({ key: k, message, now: at }).changes > 0
  );
}

function failStatement(sqlite: Sqlite, attempt: AttemptKnowledge) {
  return once(sqlite, `markFailed:${attempt}`, (db) =>
    db
      .update(t)
      .set({
        ...writes("fail"),
        ...attemptFails(t, attempt),
        errorCode: arg("code"),
        lastError: arg("message"),
        updatedAt: arg("now"),
      })
      .where(and(eq(t.key, key), movable(t, "fail")))
      .prepare(),
  );
}

export function markFailed(
  sqlite: Sqlite,
  k: string,
  settle: Settle,
  attempt: AttemptKnowledge,
  at: string,
): boolean {
  return failStatement(sqlite, attempt).run({ key: k, ...settle, now: at }).changes > 0;
}

/** Each key the same prepared statement (SQLite has no round trip to save), in one transaction. */
export function failMany(sqlite: Sqlite, keys: readonly string[], settle: Settle, at: string): number {
  const fail = failStatement(sqlite, "none");
  return atomically(sqlite, () => {
    let n = 0;
    for (const k of keys)
      n += fail.run({ key: k, code: settle.code, message: settle.message, now: at }).changes;
    return n;
  });
}

export function block(sqlite: Sqlite, keys: readonly string[], settle: Settle, at: string): number {
  const update = once(sqlite, "block", (db) =>
    db
      .update(t)
      .set({ ...writes("block"), errorCode: arg("code"), lastError: arg("message"), updatedAt: arg("now") })
      .where(and(eq(t.key, key), movable(t, "block")))
      .prepare(),
  );
  return atomically(sqlite, () => {
    let n = 0;
    for (const k of keys)
      n += update.run({ key: k, code: settle.code, message: settle.message, now: at }).changes;
    return n;
  });
}

export function learnId(
  sqlite: Sqlite,
  k: string,
  scenarioId: number,
  source: ScenarioIdSource,
  at: string,
): boolean {
  return (
    orm(sqlite)
      .update(t)
      .set({ scenarioId, scenarioIdSource: source, updatedAt: at })
      .where(and(eq(t.key, k), idUnknown(t)))
      .run().changes > 0
  );
}

export function resetFailed(
  sqlite: Sqlite,
  filter: { code?: string | undefined; key?: string | undefined },
  at: string,
): string[] {
  return orm(sqlite)
    .update(t)
    .set({ ...writes("retry"), uncertain: retryUncertain(t), updatedAt: at })
    .where(
      and(
        movable(t, "retry"),
        filter.code === undefined ? undefined : eq(t.errorCode, filter.code),
        filter.key === undefined ? undefined : eq(t.key, filter.key),
      ),
    )
    .returning({ key: t.key })
    .all()
    .map((r) => r.key);
}
