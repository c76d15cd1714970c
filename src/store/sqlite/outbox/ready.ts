/** Which outbox rows can be queued, which wait on a parent that has no id, which are queued. */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { movable, orphaned, ready, statusIn, UNSETTLED, writes } from "../../../tables/outbox-states.js";
import { whereAll } from "../../outbox-filter.js";
import type { KeyPage, Orphan, RowFilter } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { arg, atomically, once, orm, p, rendered, t } from "./tables.js";

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
export function takeReady(sqlite: Sqlite, now: string, filter: RowFilter = {}, page?: KeyPage): string[] {
  if (page) return takeReadyPage(sqlite, now, filter, page);
  const shape = filterShape(filter);
  return rendered(sqlite, `takeReady:${Object.keys(shape).join(",")}`, (db) =>
    db
      .update(t)
      .set({ ...writes("queue"), updatedAt: arg("now") })
      .where(whereAll(t, shape, movable(t, "queue"), ready(t, p)))
      .returning({ key: t.key }),
  ).pluck<string>({ ...filter, now });
}

/** A row's place in the table (its rowid): pages follow it, the order the rows were recorded in. */
const rowid = sql`${t}.rowid`;
/** Rows after the page before's last key (found by its key, through the primary key's index). */
const afterKey = sql`${rowid} > (select rowid from ${t} where ${t.key} = ${sql.placeholder("after")})`;

/**
 * Keys of one page of the rows that `where` selects, in rowid order: with a batch's filter, its
 * index walks (batch_id, rowid) from where the page before ended, so a page costs its own rows
 * and not the rows already taken.
 */
function keyPage(
  sqlite: Sqlite,
  name: string,
  filter: RowFilter,
  page: KeyPage,
  where: (shape: RowFilter, after: SQL | undefined) => SQL,
): string[] {
  const shape = filterShape(filter);
  const after = page.after === undefined ? undefined : afterKey;
  return rendered(sqlite, `${name}:${Object.keys(shape).join(",")}:${after ? "after" : "first"}`, (db) =>
    db
      .select({ key: t.key })
      .from(t)
      .where(where(shape, after))
      .orderBy(rowid)
      .limit(sql.placeholder("limit")),
  ).pluck<string>({
    ...filter,
    limit: page.limit,
    ...(page.after === undefined ? {} : { after: page.after }),
  });
}

/**
 * One page of takeReady: the page's keys found, then each one queued, in the one transaction
 * of the caller's write (nothing runs in between on this connection).
 */
function takeReadyPage(sqlite: Sqlite, now: string, filter: RowFilter, page: KeyPage): string[] {
  const keys = keyPage(sqlite, "readyPage", filter, page, (shape, after) =>
    whereAll(t, shape, movable(t, "queue"), ready(t, p), after),
  );
  const take = rendered(sqlite, "takeOne", (db) =>
    db
      .update(t)
      .set({ ...writes("queue"), updatedAt: arg("now") })
      .where(and(eq(t.key, sql.placeholder("key")), movable(t, "queue"))),
  );
  return atomically(sqlite, () => keys.filter((key) => take.run({ key, now }).changes === 1));
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

export function queuedKeys(sqlite: Sqlite, filter: RowFilter = {}, page?: KeyPage): string[] {
  if (page)
    return keyPage(sqlite, "queuedPage", filter, page, (shape, after) =>
      whereAll(t, shape, statusIn(t, ["queued"]), after),
    );
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
