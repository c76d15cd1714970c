/** Rows held back while their company's credentials are refused: hold, release, probe, summary. */
import { and, asc, count, desc, eq, max } from "drizzle-orm";
import { movable, ready, statusIn, writes } from "../../../tables/outbox-states.js";
import type { HeldCompany, Settle } from "../../port-outbox.js";
import type { Sqlite } from "../connection.js";
import { atomically, orm, p, t } from "./tables.js";

export function hold(sqlite: Sqlite, companyId: number, settle: Settle, at: string): number {
  return orm(sqlite)
    .update(t)
    .set({ ...writes("hold"), errorCode: settle.code, lastError: settle.message, updatedAt: at })
    .where(and(eq(t.companyId, companyId), movable(t, "hold")))
    .run().changes;
}

export function release(sqlite: Sqlite, companyId: number | undefined, at: string): number {
  return orm(sqlite)
    .update(t)
    .set({ ...writes("release"), updatedAt: at })
    .where(and(movable(t, "release"), companyId === undefined ? undefined : eq(t.companyId, companyId)))
    .run().changes;
}

/** One ready held row per company goes to queued (its reason kept: it is a probe). */
export function probeHeld(sqlite: Sqlite, at: string): string[] {
  const db = orm(sqlite);
  return atomically(sqlite, () => {
    const keys: string[] = [];
    const companies = db
      .selectDistinct({ id: t.companyId })
      .from(t)
      .where(statusIn(t, ["held"]))
      .all();
    for (const { id } of companies) {
      const first = db
        .select({ key: t.key })
        .from(t)
        .where(and(eq(t.companyId, id), statusIn(t, ["held"]), ready(t, p)))
        .orderBy(asc(t.updatedAt), asc(t.key))
        .limit(1)
        .get();
      if (!first) continue;
      const moved = db
        .update(t)
        .set({ ...writes("probe"), updatedAt: at })
        .where(and(eq(t.key, first.key), movable(t, "probe")))
        .run().changes;
      if (moved) keys.push(first.key);
    }
    return keys;
  });
}

export function heldCompanies(sqlite: Sqlite): HeldCompany[] {
  return orm(sqlite)
    .select({
      companyId: t.companyId,
      rows: count(),
      code: max(t.errorCode),
      message: max(t.lastError),
    })
    .from(t)
    .where(statusIn(t, ["held"]))
    .groupBy(t.companyId)
    .orderBy(desc(count()), asc(t.companyId))
    .all()
    .map((r) => ({ ...r, code: r.code ?? "UNKNOWN", message: r.message ?? "" }));
}
