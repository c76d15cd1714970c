/** Rows held back while their company's credentials are refused: hold, release, probe, summary. */
import { and, asc, count, desc, eq, max } from "drizzle-orm";
import { movable, ready, statusIn, writes } from "../../../tables/outbox-states.js";
import type { HeldCompany, Settle } from "../../port-outbox.js";
import { orm } from "../orm.js";
import type { Db, PoolClient } from "../pool.js";
import { p, t } from "./tables.js";

export async function hold(db: PoolClient, companyId: number, settle: Settle, now: string): Promise<number> {
  const rows = await orm(db)
    .update(t)
    .set({ ...writes("hold"), errorCode: settle.code, lastError: settle.message, updatedAt: now })
    .where(and(eq(t.companyId, companyId), movable(t, "hold")))
    .returning({ key: t.key });
  return rows.length;
}

export async function release(db: PoolClient, companyId: number | undefined, now: string): Promise<number> {
  const rows = await orm(db)
    .update(t)
    .set({ ...writes("release"), updatedAt: now })
    .where(and(movable(t, "release"), companyId === undefined ? undefined : eq(t.companyId, companyId)))
    .returning({ key: t.key });
  return rows.length;
}

/** One ready held row per company goes to queued (its reason kept: it is a probe). */
export async function probeHeld(db: PoolClient, now: string): Promise<string[]> {
  const o = orm(db);
  const keys: string[] = [];
  const companies = await o
    .selectDistinct({ id: t.companyId })
    .from(t)
    .where(statusIn(t, ["held"]));
  for (const { id } of companies) {
    const [first] = await o
      .select({ key: t.key })
      .from(t)
      .where(and(eq(t.companyId, id), statusIn(t, ["held"]), ready(t, p)))
      .orderBy(asc(t.updatedAt), asc(t.key))
      .limit(1);
    if (!first) continue;
    const moved = await o
      .update(t)
      .set({ ...writes("probe"), updatedAt: now })
      .where(and(eq(t.key, first.key), movable(t, "probe")))
      .returning({ key: t.key });
    if (moved.length) keys.push(first.key);
  }
  return keys;
}

export async function heldCompanies(db: Db): Promise<HeldCompany[]> {
  const rows = await orm(db)
    .select({ companyId: t.companyId, rows: count(), code: max(t.errorCode), message: max(t.lastError) })
    .from(t)
    .where(statusIn(t, ["held"]))
    .groupBy(t.companyId)
    .orderBy(desc(count()), asc(t.companyId));
  return rows.map((r) => ({ ...r, code: r.code ?? "UNKNOWN", message: r.message ?? "" }));
}
