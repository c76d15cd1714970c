/** What a create job reads of its row, and the write-ahead marks around each attempt. */
import { and, eq, sql } from "drizzle-orm";
import { attemptBegins, attemptEnds, claimable } from "../../../tables/outbox-states.js";
import type { AttemptKnowledge, OutboxRow, SendableRow, Settle } from "../../port-outbox.js";
import { sendableOf } from "../../rows.js";
import type { Sqlite } from "../connection.js";
import { arg, once, orm, p, scenarios, t } from "./tables.js";

const key = sql.placeholder("key");

/** The row with its parent's status, id, answer and request: one statement. */
export function sendable(sqlite: Sqlite, k: string): SendableRow | undefined {
  const r = once(sqlite, "sendable", (db) =>
    db
      .select({
        status: t.status,
        companyId: t.companyId,
        projectId: t.projectId,
        payloadJson: t.payloadJson,
        parentKey: t.parentKey,
        attempts: t.attempts,
        inFlight: t.inFlight,
        uncertain: t.uncertain,
        errorCode: t.errorCode,
        pStatus: p.status,
        pScenarioId: p.scenarioId,
        pPayloadJson: p.payloadJson,
        pScenarioJson: scenarios.rawJson,
      })
      .from(t)
      .leftJoin(p, eq(p.key, t.parentKey))
      .leftJoin(scenarios, and(eq(scenarios.id, p.scenarioId), eq(scenarios.requestKey, p.key)))
      .where(eq(t.key, key))
      .prepare(),
  ).get({ key: k });
  return r && sendableOf(r);
}

/** The whole row. */
export function getRow(sqlite: Sqlite, k: string): OutboxRow | undefined {
  return orm(sqlite).select().from(t).where(eq(t.key, k)).get();
}

/** The write-ahead, if the row still has the attempts its job read; undefined if it moved. */
export function beginAttempt(
  sqlite: Sqlite,
  k: string,
  seen: { attempts: number },
  at: string,
): boolean | undefined {
  const r = once(sqlite, "beginAttempt", (db) =>
    db
      .update(t)
      .set({
        ...attemptBegins(t),
        updatedAt: arg("now"),
      })
      .where(claimable(t))
      .returning({ uncertain: t.uncertain })
      .prepare(),
  ).get({ key: k, attempts: seen.attempts, now: at });
  return r && r.uncertain === true;
}

export function endAttempt(
  sqlite: Sqlite,
  k: string,
  attempt: AttemptKnowledge,
  settle: Settle,
  at: string,
): void {
  once(sqlite, `endAttempt:${attempt}`, (db) =>
    db
      .update(t)
      .set({
        ...attemptEnds(t, attempt),
        errorCode: arg("code"),
        lastError: arg("message"),
        updatedAt: arg("now"),
      })
      .where(eq(t.key, key))
      .prepare(),
  ).run({ key: k, code: settle.code, message: settle.message, now: at });
}
