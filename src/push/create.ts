/**
 * Create one outbox row's scenario, exactly once. The plain function behind the
 * create-scenario job (and so behind `push --wait` and the daemon alike).
 */
import type { CreatedScenario, TasClient } from "../api/client.js";
import { MAX_RATE_LIMIT_WAITS } from "../api/http.js";
import type { Logger } from "../log.js";
import type { AttemptKnowledge, OutboxStore, ParentInfo, SendableRow, Settle } from "../store/port-outbox.js";
import { GIVES_ID, isSendable, OUTCOME_UNKNOWN, type RequestStatus } from "../tables/outbox-states.js";
import { noTelemetry, type Telemetry } from "../telemetry.js";
import { type CreateScenarioBody, scenarioSchema } from "../wire/schemas.js";
import { classifyFailure } from "./classify.js";
import type { SettledRows } from "./failure-log.js";
import type { RateLimitGate } from "./gate.js";
import { afterProbe, CREDENTIALS_REFUSED, holdCompany, refusedCredentials, stillProbing } from "./held.js";
import { parentFromRequest, parentObject, scenarioRow } from "./parent.js";
import { afterExistsWithoutId, blockUnder, failWithDescendants } from "./settle.js";

export interface CreateDeps {
  outbox: OutboxStore;
  clientFor(companyId: number): TasClient;
  /** Waits for a slot of the shared rate limit (all workers on the same Redis); absent: no limit. */
  acquireSlot?: () => Promise<void>;
  /** Who waits after a 429 (./gate.ts); absent: a 429 is a transient failure like a 500. */
  gate?: RateLimitGate;
  /**
   * The service refuses a second scenario of a name in a project (API-FACTS; push.uniqueNames,
   * default true): an attempt whose outcome is unknown is then sent again, and a name clash
   * says it was created. false: such a row is never sent again (it could be created twice);
   * it fails as OUTCOME_UNKNOWN for a person to check.
   */
  uniqueNames?: boolean;
  logger: Logger;
  /** Told of each row that ends failed or held (the daemon's log lines: ./failure-log.ts). */
  settled?: SettledRows;
  telemetry?: Telemetry;
  now?: () => Date;
}

/** Where the job stands: its last allowed attempt, and how many 429 waits it has had. */
export interface JobAttempt {
  final: boolean;
  rateLimitWaits: number;
}

const LOCAL_WRITE_ATTEMPTS = 5;

export type CreateResult =
  | { status: "created" | "exists" | "failed" | "skipped" | "blocked" | "held"; ready: string[] }
  /** Transient failure: the job should be retried later (uses up one of its attempts). */
  | { status: "retry"; code: string; message: string }
  /** Not now, and not the row's fault (a 429): run again after `delayMs`, no attempt used. */
  | { status: "later"; delayMs: number; reason: string };

export async function createScenarioFor(
  deps: CreateDeps,
  key: string,
  job: JobAttempt = { final: false, rateLimitWaits: 0 },
): Promise<CreateResult> {
  const { outbox } = deps;
  const telemetry = deps.telemetry ?? noTelemetry;
  const now = () => (deps.now?.() ?? new Date()).toISOString();
  const row = await outbox.sendable(key);
  // A settled row is never sent again; a held one waits (a probe of it is queued first), and a
  // blocked one too (it is queued once its parent gives an id).
  if (!row || !isSendable(row.status)) return { status: "skipped", ready: [] };
  const wait = deps.gate?.wait(row.companyId) ?? 0;
  if (wait > 0) return { status: "later", delayMs: wait, reason: "the company's requests are rate limited" };
  if (deps.uniqueNames === false && (row.uncertain || row.inFlight)) return outcomeUnknown(deps, key, now());
  // A held company's probe (probeHeld queued it with its reason kept): the service's answer, if
  // it is not a refusal, says that the company's credentials work again.
  const probe = row.errorCode === CREDENTIALS_REFUSED;
  const release = async (at: string): Promise<string[]> =>
    probe ? afterProbe(outbox, deps.logger, row.companyId, at) : [];
  // An attempt that ends with nothing said of the credentials (a 5xx, a 429, no answer): a
  // probe's row keeps its reason, so that its next attempt is the probe still.
  const endUnanswered = (attempt: AttemptKnowledge, outcome: Settle, at: string) =>
    outbox.endAttempt(key, attempt, probe ? stillProbing(row.companyId, outcome) : outcome, at);
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
  // Every send takes a slot of the shared rate limit: the first one here, a resend's (after a
  // 401: the same attempt) in the HTTP call.
  let resend = false;
  const slotForResend = async () => {
    if (resend) await deps.acquireSlot?.();
    resend = true;
  };
  const client = deps.clientFor(row.companyId);
  let answer: CreatedScenario;
  try {
    await deps.acquireSlot?.();
    // The write-ahead marker, committed before the request leaves: a crash after the server's
    // commit leaves a trace.
    const claimed = await outbox.beginAttempt(key, row, now());
    // The row moved since this run read it: another run of the job wrote ahead first (two sends
    // could create it twice), or the row was settled or held. This run sends nothing.
    if (claimed === undefined) {
      deps.logger.info(
        { key },
        "the row moved since this job read it (another run wrote ahead, or it settled or was held): not sent",
      );
      return { status: "skipped", ready: [] };
    }
    uncertain = claimed;
    began = true;
    deps.logger.debug({ key, projectId: row.projectId }, "creating scenario");
    answer = await client.createScenario(row.projectId, payload, slotForResend);
  } catch (err) {
    const outcome = classifyFailure(err, uncertain);
    // What this run knows of its own attempt (nothing, if it never got to send).
    const sent = (sure: boolean): AttemptKnowledge => (!began ? "none" : sure ? "sure" : "unknown");
    switch (outcome.kind) {
      case "exists": {
        telemetry.pushOutcome("exists", null);
        const released = await release(now());
        if (!(await outbox.markExists(key, outcome.message, now())))
          return { status: "exists", ready: released };
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
        return { status: "exists", ready: [...ready, ...released] };
      }
      case "failed": {
        telemetry.pushOutcome("failed", outcome.code);
        const released = await release(now());
        await failWithDescendants(outbox, key, outcome, sent(true), now(), failedRows(deps));
        return { status: "failed", ready: released };
      }
      case "unauthorized": {
        const why = refusedCredentials(
          row.companyId,
          { renewable: client.renewableAuth, tokenEndpoint: outcome.tokenEndpoint },
          outcome.message,
        );
        // A create the token endpoint kept from leaving is no attempt at all.
        await outbox.endAttempt(key, outcome.tokenEndpoint && began ? "refused" : sent(true), why, now());
        // Only this company's rows wait; the job ends (the row is held, not failed).
        await holdCompany(outbox, deps.logger, row.companyId, why, now());
        await deps.settled?.held(key);
        return { status: "held", ready: [] };
      }
      case "rate-limited":
        // As many 429 waits as one HTTP call sits out, then a 429 uses up one of the job's attempts.
        if (deps.gate && job.rateLimitWaits < MAX_RATE_LIMIT_WAITS) {
          await endUnanswered(began ? "refused" : "none", outcome, now());
          telemetry.rateLimitWait("createScenario", (outcome.retryAfterMs ?? 0) / 1000);
          const delayMs = deps.gate.limited(row.companyId, outcome.retryAfterMs);
          return { status: "later", delayMs, reason: outcome.message };
        }
        return retryOrFail(deps, key, row, outcome, sent(true), job.final, endUnanswered, now());
      case "retry":
        return retryOrFail(deps, key, row, outcome, sent(outcome.sure), job.final, endUnanswered, now());
    }
  }
  // The service created it: record the answer and queue the children it unblocks, in one
  // store operation. A local failure here is not the service's (and must not be classified as
  // an unknown outcome, which would lose the id): retry it.
  const at = now();
  const created = scenarioRow(answer.scenario, answer.text, key, row.companyId, at);
  const { ready } = await withLocalRetries(deps, `record scenario ${created.id} of ${key}`, () =>
    outbox.settleCreated(key, created, at),
  );
  const released = await release(at);
  telemetry.pushOutcome("created", null);
  deps.logger.debug({ key, scenarioId: created.id }, "scenario created");
  return { status: "created", ready: [...ready, ...released] };
}

async function retryOrFail(
  deps: CreateDeps,
  key: string,
  row: SendableRow,
  outcome: { code: string; message: string },
  attempt: AttemptKnowledge,
  final: boolean,
  endAttempt: (attempt: AttemptKnowledge, outcome: Settle, now: string) => Promise<void>,
  now: string,
): Promise<CreateResult> {
  const telemetry = deps.telemetry ?? noTelemetry;
  if (final) {
    const message = `gave up after ${row.attempts + 1} attempts: ${outcome.message}`;
    telemetry.pushOutcome("failed", outcome.code);
    await failWithDescendants(
      deps.outbox,
      key,
      { code: outcome.code, message },
      attempt,
      now,
      failedRows(deps),
    );
    return { status: "failed", ready: [] };
  }
  telemetry.pushOutcome("retry", outcome.code);
  await endAttempt(attempt, outcome, now);
  return { status: "retry", code: outcome.code, message: outcome.message };
}

/** An earlier attempt may have created it, and the service's names cannot tell: never send it again. */
async function outcomeUnknown(deps: CreateDeps, key: string, now: string): Promise<CreateResult> {
  const settle = {
    code: OUTCOME_UNKNOWN,
    message:
      "an earlier attempt may have created it (its answer was lost) and the service does not refuse repeated names (push.uniqueNames false): not sent again; check the service, then tas-sync retry-failed --key KEY if it is not there",
  };
  (deps.telemetry ?? noTelemetry).pushOutcome("failed", OUTCOME_UNKNOWN);
  await failWithDescendants(deps.outbox, key, settle, "unknown", now, failedRows(deps));
  return { status: "failed", ready: [] };
}

/** The parent object to send, from the parent's answer or its request and known id; null if none. */
function parentObjectOf(parent: ParentInfo) {
  if (parent.scenarioId === null || !(GIVES_ID as readonly RequestStatus[]).includes(parent.status))
    return null;
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
    failedRows(deps),
  );
  return { status: "failed", ready: [] };
}

/** What tells of failed rows, if anything listens. */
function failedRows(deps: CreateDeps): ((keys: readonly string[]) => Promise<void>) | undefined {
  const settled = deps.settled;
  return settled ? (keys) => settled.failed(keys) : undefined;
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
