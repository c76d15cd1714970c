/**
 * Create one outbox row's scenario, exactly once. The plain function behind the
 * create-scenario job (and so behind `push --wait` and the daemon alike).
 */
import type { CreatedScenario, TasClient } from "../api/client.js";
import type { Logger } from "../log.js";
import type { AttemptKnowledge, OutboxStore, ParentInfo, SendableRow } from "../store/port-outbox.js";
import { noTelemetry, type Telemetry } from "../telemetry.js";
import { type CreateScenarioBody, scenarioSchema } from "../wire/schemas.js";
import { classifyFailure } from "./classify.js";
import { parentFromRequest, parentObject, scenarioRow } from "./parent.js";
import { afterExistsWithoutId, blockUnder, failWithDescendants } from "./settle.js";

export interface CreateDeps {
  outbox: OutboxStore;
  clientFor(companyId: number): TasClient;
  /** Waits for a slot of the shared rate limit (all workers on the same Redis); absent: no limit. */
  acquireSlot?: () => Promise<void>;
  logger: Logger;
  telemetry?: Telemetry;
  now?: () => Date;
}

const LOCAL_WRITE_ATTEMPTS = 5;

export type CreateResult =
  | { status: "created" | "exists" | "failed" | "skipped" | "blocked"; ready: string[] }
  /** Transient failure: the job should be retried later. */
  | { status: "retry"; code: string; message: string };

/** Thrown when the token is refused after re-authenticating: the queue should pause. */
export class PushUnauthorizedError extends Error {
  override name = "PushUnauthorizedError";
}

const SETTLED = new Set(["created", "exists", "failed"]);

export async function createScenarioFor(
  deps: CreateDeps,
  key: string,
  finalAttempt: boolean,
): Promise<CreateResult> {
  const { outbox } = deps;
  const telemetry = deps.telemetry ?? noTelemetry;
  const now = () => (deps.now?.() ?? new Date()).toISOString();
  const row = await outbox.sendable(key);
  if (!row || SETTLED.has(row.status)) return { status: "skipped", ready: [] };
  // The stored payload is the request body as JSON; only a row with a parent_key changes it.
  let payload = row.payloadJson;
  if (row.parentKey) {
    const parent = row.parent;
    const object = parent ? parentObjectOf(parent) : null;
    if (!object) return parentNotUsable(deps, key, row, now());
    const body = JSON.parse(payload) as CreateScenarioBody;
    body.parent = object;
    payload = JSON.stringify(body);
  }

  let began = false;
  let uncertain = row.uncertain || row.inFlight;
  // Every send takes a slot of the shared rate limit, resends after a 429 included. The
  // write-ahead marker goes right before the first send: a 429 resend is the same attempt.
  const beforeSend = async () => {
    if (deps.acquireSlot) await deps.acquireSlot();
    if (!began) {
      // Committed before the request leaves: a crash after the server's commit leaves a trace.
      uncertain = await outbox.beginAttempt(key, now());
      began = true;
    }
  };
  let answer: CreatedScenario;
  try {
    deps.logger.debug({ key, projectId: row.projectId }, "creating scenario");
    answer = await deps.clientFor(row.companyId).createScenario(row.projectId, payload, beforeSend);
  } catch (err) {
    const outcome = classifyFailure(err, uncertain);
    // What this run knows of its own attempt (nothing, if it never got to send).
    const sent = (sure: boolean): AttemptKnowledge => (!began ? "none" : sure ? "sure" : "unknown");
    switch (outcome.kind) {
      case "exists": {
        telemetry.pushOutcome("exists", null);
        if (!(await outbox.markExists(key, outcome.message, now()))) return { status: "exists", ready: [] };
        deps.logger.info(
          { key },
          "scenario already existed after an attempt with a lost answer; not created twice",
        );
        const body = JSON.parse(row.payloadJson) as CreateScenarioBody;
        const ready = await afterExistsWithoutId(
          outbox,
          { key, projectId: row.projectId, scenarioName: body.scenario_name },
          now(),
        );
        return { status: "exists", ready };
      }
      case "failed":
        telemetry.pushOutcome("failed", outcome.code);
        await failWithDescendants(outbox, key, outcome, sent(true), now());
        return { status: "failed", ready: [] };
      case "unauthorized":
        await outbox.endAttempt(key, sent(true), { code: "UNAUTHORIZED", message: outcome.message }, now());
        throw new PushUnauthorizedError(`company ${row.companyId}: ${outcome.message}`);
      case "retry":
        if (finalAttempt) {
          const message = `gave up after ${row.attempts + 1} attempts: ${outcome.message}`;
          telemetry.pushOutcome("failed", outcome.code);
          await failWithDescendants(outbox, key, { code: outcome.code, message }, sent(outcome.sure), now());
          return { status: "failed", ready: [] };
        }
        telemetry.pushOutcome("retry", outcome.code);
        await outbox.endAttempt(key, sent(outcome.sure), outcome, now());
        return { status: "retry", code: outcome.code, message: outcome.message };
    }
  }
  // The service created it: record the answer, and queue the children it unblocks. A local
  // failure here is not the service's (and must not be classified as an unknown outcome,
  // which would lose the id): retry it.
  const at = now();
  const created = scenarioRow(answer.scenario, answer.text, key, row.companyId, at);
  const ready = await withLocalRetries(deps, `record scenario ${created.id} of ${key}`, async () => {
    // Issued together: the SQLite store commits both in one transaction.
    const [, children] = await Promise.all([
      outbox.markCreated(key, created, at),
      outbox.takeReady(at, { parentKey: key }),
    ]);
    return children;
  });
  telemetry.pushOutcome("created", null);
  deps.logger.debug({ key, scenarioId: created.id }, "scenario created");
  return { status: "created", ready };
}

/** The parent object to send, from the parent's answer or its request and known id; null if none. */
function parentObjectOf(parent: ParentInfo) {
  if (parent.scenarioId === null || (parent.status !== "created" && parent.status !== "exists")) return null;
  if (parent.scenarioJson !== null)
    return parentObject(scenarioSchema.parse(JSON.parse(parent.scenarioJson)));
  return parentFromRequest(JSON.parse(parent.payloadJson) as CreateScenarioBody, parent.scenarioId);
}

/** The row's parent cannot give it an id: wait for it (exists, id unknown), or fail. */
async function parentNotUsable(
  deps: CreateDeps,
  key: string,
  row: SendableRow,
  now: string,
): Promise<CreateResult> {
  const parent = row.parent;
  const parentKey = row.parentKey as string;
  if (parent?.status === "exists" || parent?.status === "blocked") {
    await blockUnder(deps.outbox, [key], parentKey, now);
    return { status: "blocked", ready: [] };
  }
  const why = `parent ${parentKey} is ${parent?.status ?? "missing"}`;
  await failWithDescendants(
    deps.outbox,
    key,
    { code: "PARENT_FAILED", message: `parent failed: ${why}` },
    "none",
    now,
  );
  return { status: "failed", ready: [] };
}

/** A local write, retried a few times (another process may hold the write lock). */
async function withLocalRetries<T>(deps: CreateDeps, what: string, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (attempt >= LOCAL_WRITE_ATTEMPTS) {
        // Say what was created, so it can be recovered by hand; the row stays in flight,
        // and its retry will find the name taken and settle it as exists.
        deps.logger.error({ err: (err as Error).message }, `could not ${what}`);
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
