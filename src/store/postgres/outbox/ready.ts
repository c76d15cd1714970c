/** Which outbox rows can be queued, which wait on a parent that has no id, which are queued. */
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import { movable, orphaned, ready, statusIn, UNSETTLED, writes } from "../../../tables/outbox-states.js";
import { whereAll } from "../../outbox-filter.js";
import type { KeyPage, Orphan, RowFilter } from "../../port-outbox.js";
import { arg, once, orm } from "../orm.js";
import type { Db } from "../pool.js";
import { keyInArray, p, t } from "./tables.js";

/** Pending and blocked rows that are ready become queued; one statement (with `page`, two). */
export async function takeReady(
  db: Db,
  now: string,
  filter: RowFilter = {},
  page?: KeyPage,
): Promise<string[]> {
  if (page) return takeReadyPage(db, now, filter, page);
  const rows = await orm(db)
    .update(t)
    .set({ ...writes("queue"), updatedAt: now })
    .where(whereAll(t, filter, movable(t, "queue"), ready(t, p)))
    .returning({ key: t.key });
  return rows.map((r) => r.key);
}

/** Keys after the page before's last, in key order (the primary key's index walks it). */
function keyPage(db: Db, page: KeyPage, where: SQL) {
  return orm(db)
    .select({ key: t.key })
    .from(t)
    .where(and(where, page.after === undefined ? undefined : gt(t.key, page.after)))
    .orderBy(asc(t.key))
    .limit(page.limit);
}

/**
 * One page of takeReady: its keys found and locked, then queued, in the one transaction of the
 * caller's write; returned in key order (the last one is where the next page starts).
 */
async function takeReadyPage(db: Db, now: string, filter: RowFilter, page: KeyPage): Promise<string[]> {
  const keys = (
    await keyPage(db, page, whereAll(t, filter, movable(t, "queue"), ready(t, p))).for("update")
  ).map((r) => r.key);
  if (!keys.length) return [];
  const taken = await once(db, "takeReadyPage", (o) =>
    o
      .update(t)
      .set({ ...writes("queue"), updatedAt: arg("now") })
      .where(and(keyInArray, movable(t, "queue")))
      .returning({ key: t.key })
      .prepare("tas_outbox_take_ready_page"),
  ).execute({ keys, now });
  const queued = new Set(taken.map((r) => r.key));
  return keys.filter((k) => queued.has(k));
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

export async function queuedKeys(db: Db, filter: RowFilter = {}, page?: KeyPage): Promise<string[]> {
  if (page) return (await keyPage(db, page, whereAll(t, filter, statusIn(t, ["queued"])))).map((r) => r.key);
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
