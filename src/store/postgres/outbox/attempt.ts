/** What a create job reads of its row, and the write-ahead marks around each attempt. */
import { and, eq, sql } from "drizzle-orm";
import { attemptBegins, attemptEnds, claimable } from "../../../tables/outbox-states.js";
import type { AttemptKnowledge, OutboxRow, SendableRow, Settle } from "../../port-outbox.js";
import { sendableOf } from "../../rows.js";
import { arg, once, orm } from "../orm.js";
import type { Db, PoolClient } from "../pool.js";
import { p, scenarios, t } from "./tables.js";

const key = sql.placeholder("key");

/** The row with its parent's status, id, answer and request: one statement. */
export async function sendable(db: Db, k: string): Promise<SendableRow | undefined> {
  const [r] = await once(db, "sendable", (o) =>
    o
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
      .prepare("tas_outbox_sendable"),
  ).execute({ key: k });
  return r && sendableOf(r);
}

/** The whole row. */
export async function getRow(db: Db, k: string): Promise<OutboxRow | undefined> {
  const [r] = await orm(db).select().from(t).where(eq(t.key, k));
  return r;
}

/** The write-ahead, if the row still has the attempts its job read; undefined if it moved. */
export async function beginAttempt(
  db: PoolClient,
  k: string,
  seen: { attempts: number },
  now: string,
): Promise<boolean | undefined> {
  const [r] = await once(db, "beginAttempt", (o) =>
    o
      .update(t)
      .set({
        ...attemptBegins(t),
        updatedAt: arg("now"),
      })
      .where(claimable(t))
      .returning({ uncertain: t.uncertain })
      .prepare("tas_outbox_begin_attempt"),
  ).execute({ key: k, attempts: seen.attempts, now });
  return r && r.uncertain === true;
}

export async function endAttempt(
  db: PoolClient,
  k: string,
  attempt: AttemptKnowledge,
  settle: Settle,
  now: string,
): Promise<void> {
  await once(db, `endAttempt:${attempt}`, (o) =>
    o
      .update(t)
      .set({
        ...attemptEnds(t, attempt),
        errorCode: arg("code"),
        lastError: arg("message"),
        updatedAt: arg("now"),
      })
      .where(eq(t.key, key))
      .prepare(`tas_outbox_end_attempt_${attempt}`),
  ).execute({ key: k, code: settle.code, message: settle.message, now });
}
