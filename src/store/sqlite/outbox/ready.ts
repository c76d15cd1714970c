/** Which outbox rows can be queued, which wait on a parent that has no id, which are queued. */
import { eq, sql } from "drizzle-orm";
import { movable, orphaned, ready, statusIn, UNSETTLED, writes } from "../../../tables/outbox-states.js";
import { whereAll } from "../../outbox-filter.js";
import type { Orphan, RowFilter } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { arg, once, orm, p, rendered, t } from "./tables.js";

/** The filter's parts that are given, as placeholders of their own names. */
function filterShape(filter: RowFilter): RowFilter {
  const shape: Record<string, unknown> = {};
  for (const k of ["batchId", "parentKey", "companyId"] as const)
    if (filter[k] !== undefined) shape[k] = sql.placeholder(k);
  return shape as RowFilter;
}

/**
 * Pending and blocked rows that are ready become queued; one statement, its SQL the builder's
 * and run by the driver (tables.ts `rendered`): a push of 100,000 rows queues them all at once,
 * and drizzle's execution of it measured +40% (`npm run bench:outbox`).
 */
export function takeReady(sqlite: Sqlite, now: string, filter: RowFilter = {}): string[] {
  const shape = filterShape(filter);
  return rendered(sqlite, `takeReady:${Object.keys(shape).join(",")}`, (db) =>
    db
      .update(t)
      .set({ ...writes("queue"), updatedAt: arg("now") })
      .where(whereAll(t, shape, movable(t, "queue"), ready(t, p)))
      .returning({ key: t.key }),
  ).pluck<string>({ ...filter, now });
}

/** The children a created row makes ready: queued (part of settleCreated, on the hot path). */
export function takeReadyChildren(sqlite: Sqlite, parentKey: string, now: string): string[] {
  return once(sqlite, "takeReadyChildren", (db) =>
    db
      .update(t)
      .set({ ...writes("queue"), updatedAt: arg("now") })
      .where(whereAll(t, {}, eq(t.parentKey, sql.placeholder("parent")), movable(t, "queue"), ready(t, p)))
      .returning({ key: t.key })
      .prepare(),
  )
    .all({ parent: parentKey, now })
    .map((r) => r.key);
}

export function orphans(sqlite: Sqlite, filter: RowFilter = {}): Orphan[] {
  return orm(sqlite)
    .select({ key: t.key, status: t.status, parentKey: t.parentKey, parentStatus: p.status })
    .from(t)
    .innerJoin(p, eq(p.key, t.parentKey))
    .where(whereAll(t, filter, statusIn(t, UNSETTLED), orphaned(p)))
    .all() as Orphan[];
}

export function queuedKeys(sqlite: Sqlite, filter: RowFilter = {}): string[] {
  return orm(sqlite)
    .select({ key: t.key })
    .from(t)
    .where(whereAll(t, filter, statusIn(t, ["queued"])))
    .all()
    .map((r) => r.key);
}

export function unsettledChildren(sqlite: Sqlite, parentKey: string): string[] {
  return orm(sqlite)
    .select({ key: t.key })
    .from(t)
    .where(whereAll(t, { parentKey }, statusIn(t, UNSETTLED)))
    .all()
    .map((r) => r.key);
}
