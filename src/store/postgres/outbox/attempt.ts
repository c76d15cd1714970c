/**
 * What a create job reads of its row, and the write-ahead marks around each attempt. A create
 * job's statements: the builder writes them, the driver runs them (orm.ts `statement`).
 */
import { and, eq, sql } from "drizzle-orm";
import type { AttemptKnowledge, OutboxRow, SendableRow, Settle } from "../../port-outbox.js";
import { type SendableJoin, sendableOf } from "../../rows.js";
import { arg, orm, statement } from "../orm.js";
import type { Db, PoolClient } from "../pool.js";
import { p, scenarios, t } from "./tables.js";

const key = sql.placeholder("key");

const SENDABLE_FIELDS = {
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
};

const selectSendable = statement<SendableJoin & Record<string, unknown>>(
  "outbox_sendable",
  (o) =>
    o
      .select(SENDABLE_FIELDS)
      .from(t)
      .leftJoin(p, eq(p.key, t.parentKey))
      .leftJoin(scenarios, and(eq(scenarios.id, p.scenarioId), eq(scenarios.requestKey, p.key)))
      .where(eq(t.key, key)),
  Object.keys(SENDABLE_FIELDS) as (keyof SendableJoin & string)[],
);

/** The row with its parent's status, id, answer and request: one statement. */
export async function sendable(db: Db, k: string): Promise<SendableRow | undefined> {
  const [r] = await selectSendable(db, { key: k });
  return r && sendableOf(r);
}

/** The whole row. */
export async function getRow(db: Db, k: string): Promise<OutboxRow | undefined> {
  const [r] = await orm(db).select().from(t).where(eq(t.key, k));
  return r;
}

const begin = statement<{ uncertain: boolean }>(
  "outbox_begin_attempt",
  (o) =>
    o
      .update(t)
      .set({
        uncertain: sql`(${t.uncertain} or ${t.inFlight})`,
        inFlight: true,
        attempts: sql`${t.attempts} + 1`,
        updatedAt: arg("now"),
      })
      .where(eq(t.key, key))
      .returning({ uncertain: t.uncertain }),
  ["uncertain"],
);

export async function beginAttempt(db: PoolClient, k: string, now: string): Promise<boolean> {
  const [r] = await begin(db, { key: k, now });
  return r?.uncertain === true;
}

// Only a sure answer to our own attempt clears the marker; otherwise the next attempt's
// write-ahead folds it into `uncertain`. A 429 was not looked at: not an attempt.
const end = Object.fromEntries(
  (["none", "sure", "unknown", "refused"] as const).map((attempt) => {
    const sure = attempt === "sure" || attempt === "refused";
    return [
      attempt,
      statement(`outbox_end_attempt_${attempt}`, (o) =>
        o
          .update(t)
          .set({
            ...(sure ? { inFlight: false } : {}),
            ...(attempt === "refused" ? { attempts: sql`${t.attempts} - 1` } : {}),
            errorCode: arg("code"),
            lastError: arg("message"),
            updatedAt: arg("now"),
          })
          .where(eq(t.key, key)),
      ),
    ];
  }),
) as Record<AttemptKnowledge, ReturnType<typeof statement>>;

export async function endAttempt(
  db: PoolClient,
  k: string,
  attempt: AttemptKnowledge,
  settle: Settle,
  now: string,
): Promise<void> {
  await end[attempt](db, { key: k, code: settle.code, message: settle.message, now });
}
