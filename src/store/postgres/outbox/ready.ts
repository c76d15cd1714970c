/** Which outbox rows can be queued, which wait on a parent that has no id, which are queued. */
import { eq, sql } from "drizzle-orm";
import { movable, orphaned, ready, statusIn, UNSETTLED, writes } from "../../../tables/outbox-states.js";
import { whereAll } from "../../outbox-filter.js";
import type { Orphan, RowFilter } from "../../port-outbox.js";
import { arg, once, orm } from "../orm.js";
import type { Db } from "../pool.js";
import { p, t } from "./tables.js";

/** Pending and blocked rows that are ready become queued; one statement. */
export async function takeReady(db: Db, now: string, filter: RowFilter = {}): Promise<string[]> {
  const rows = await orm(db)
    .update(t)
    .set({ ...writes("queue"), updatedAt: now })
    .where(whereAll(t, filter, movable(t, "queue"), ready(t, p)))
    .returning({ key: t.key });
  return rows.map((r) => r.key);
}

/** The children a created row makes ready: queued (part of settleCreated, on the hot path). */
export async function takeReadyChildren(db: Db, parentKey: string, now: string): Promise<string[]> {
  const rows = await once(db, "takeReadyChildren", (o) =>
    o
      .update(t)
      .set({ ...writes("queue"), updatedAt: arg("now") })
      .where(whereAll(t, {}, eq(t.parentKey, sql.placeholder("parent")), movable(t, "queue"), ready(t, p)))
      .returning({ key: t.key })
      .prepare("tas_outbox_take_ready_children"),
  ).execute({ parent: parentKey, now });
  return rows.map((r) => r.key);
}

export async function orphans(db: Db, filter: RowFilter = {}): Promise<Orphan[]> {
  return (await orm(db)
    .select({ key: t.key, status: t.status, parentKey: t.parentKey, parentStatus: p.status })
    .from(t)
    .innerJoin(p, eq(p.key, t.parentKey))
    .where(whereAll(t, filter, statusIn(t, UNSETTLED), orphaned(p)))) as Orphan[];
}

export async function queuedKeys(db: Db, filter: RowFilter = {}): Promise<string[]> {
  const rows = await orm(db)
    .select({ key: t.key })
    .from(t)
    .where(whereAll(t, filter, statusIn(t, ["queued"])));
  return rows.map((r) => r.key);
}

export async function unsettledChildren(db: Db, parentKey: string): Promise<string[]> {
  const rows = await orm(db)
    .select({ key: t.key })
    .from(t)
    .where(whereAll(t, { parentKey }, statusIn(t, UNSETTLED)));
  return rows.map((r) => r.key);
}
