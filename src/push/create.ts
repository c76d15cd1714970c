/**
 * Create one outbox row's scenario, exactly once. The plain function behind the
 * create-scenario job (and so behind `push --wait` and the daemon alike).
 */
import type { CreatedScenario, TasClient } from "../api/client.js";
import type { Logger } from "../log.js";
import type { Sqlite } from "../store/db.js";
import {
  type AttemptKnowledge,
  beginAttempt,
  endAttempt,
  failChildren,
  getRequest,
  getScenario,
  getSendable,
  markCreated,
  markExists,
  markFailed,
} from "../store/outbox.js";
import { type CreateScenarioBody, scenarioSchema } from "../wire/schemas.js";
import { classifyFailure } from "./classify.js";
import { parentObject, scenarioRow } from "./parent.js";

export interface CreateDeps {
  sqlite: Sqlite;
  clientFor(companyId: number): TasClient;
  /** Waits for a slot of the shared rate limit (all workers on the same Redis); absent: no limit. */
  acquireSlot?: () => Promise<void>;
  logger: Logger;
  now?: () => Date;
  /**
   * Commits a write before resolving; the worker shares one commit among the jobs of an
   * event-loop turn (GroupCommit). Default: each write commits on its own.
   */
  commit?: <T>(write: () => T) => Promise<T>;
}

const commitAlone = async <T>(write: () => T): Promise<T> => write();

const LOCAL_WRITE_ATTEMPTS = 5;

export type CreateResult =
  | { status: "created" | "exists" | "failed" | "skipped"; ready: string[] }
  /** Transient failure: the job should be retried later. */
  | { status: "retry"; code: string; message: string };

/** Thrown when the token is refused after one re-authentication: the queue should pause. */
export class PushUnauthorizedError extends Error {
  override name = "PushUnauthorizedError";
}

export async function createScenarioFor(
  deps: CreateDeps,
  key: string,
  finalAttempt: boolean,
): Promise<CreateResult> {
  const { sqlite } = deps;
  const commit = deps.commit ?? commitAlone;
  const now = () => (deps.now?.() ?? new Date()).toISOString();
  const row = getSendable(sqlite, key);
  if (!row || row.status === "created" || row.status === "exists" || row.status === "failed") {
    return { status: "skipped", ready: [] };
  }
  // The stored payload is the request body as JSON; only a row with a parent_key changes it.
  let payload = row.payloadJson;
  if (row.parentKey) {
    const parent = getRequest(sqlite, row.parentKey);
    const created =
      parent?.status === "created" && parent.scenarioId !== null
        ? getScenario(sqlite, parent.scenarioId)
        : undefined;
    if (!created) {
      const why =
        parent?.status === "exists"
          ? `parent ${row.parentKey} exists but its id is unknown (its create answer was lost); give this row an inline parent`
          : `parent ${row.parentKey} is ${parent?.status ?? "missing"}`;
      markFailed(sqlite, key, "PARENT_FAILED", `parent failed: ${why}`, now());
      return { status: "failed", ready: [] };
    }
    const body = JSON.parse(payload) as CreateScenarioBody;
    body.parent = parentObject(scenarioSchema.parse(JSON.parse(created.rawJson)));
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
      uncertain = await commit(() => beginAttempt(sqlite, key, now()));
      began = true;
    }
  };
  let answer: CreatedScenario;
  try {
    answer = await deps.clientFor(row.companyId).createScenario(row.projectId, payload, beforeSend);
  } catch (err) {
    const outcome = classifyFailure(err, uncertain);
    // What this run knows of its own attempt (nothing, if it never got to send).
    const sent = (sure: boolean): AttemptKnowledge => (!began ? "none" : sure ? "sure" : "unknown");
    switch (outcome.kind) {
      case "exists":
        if (markExists(sqlite, key, outcome.message, now())) {
          deps.logger.info(
            { key },
            "scenario already existed after an attempt with a lost answer; not created twice",
          );
          // Children need the parent's id, which a lost answer did not give us.
          const why = `parent ${key} exists but its id is unknown (its create answer was lost)`;
          failChildren(sqlite, key, "PARENT_ID_UNKNOWN", why, now());
        }
        return { status: "exists", ready: [] };
      case "failed":
        markFailed(sqlite, key, outcome.code, outcome.message, now(), sent(true));
        return { status: "failed", ready: [] };
      case "unauthorized":
        endAttempt(sqlite, key, sent(true), "UNAUTHORIZED", outcome.message, now());
        throw new PushUnauthorizedError(`company ${row.companyId}: ${outcome.message}`);
      case "retry":
        if (finalAttempt) {
          const message = `gave up after ${row.attempts + 1} attempts: ${outcome.message}`;
          markFailed(sqlite, key, outcome.code, message, now(), sent(outcome.sure));
          return { status: "failed", ready: [] };
        }
        endAttempt(sqlite, key, sent(outcome.sure), outcome.code, outcome.message, now());
        return { status: "retry", code: outcome.code, message: outcome.message };
    }
  }
  // The service created it: record the answer. A local failure here is not the service's
  // (and must not be classified as an unknown outcome, which would lose the id): retry it.
  const at = now();
  const created = scenarioRow(answer.scenario, answer.text, key, row.companyId, at);
  const ready = await withLocalRetries(deps, `record scenario ${created.id} of ${key}`, () =>
    commit(() => markCreated(sqlite, key, created, at)),
  );
  return { status: "created", ready };
}

/** A local SQLite write, retried a few times (another process may hold the write lock). */
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
