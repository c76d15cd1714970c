/** Job: create one outbox row's scenario. The payload is the row's key only (no secret). */
import { createHash } from "node:crypto";
import { z } from "zod";
import { type CreateDeps, type CreateResult, createScenarioFor } from "../src/push/create.js";

export const NAME = "create-scenario";
export const payloadSchema = z.object({ key: z.string().min(1) });
export type Payload = z.infer<typeof payloadSchema>;

/**
 * Finished jobs kept for the dashboard (the newest of each, by count): the outbox row keeps the
 * outcome for good; these only let /queues show what was pushed lately.
 */
export const KEEP_COMPLETED = 1000;
export const KEEP_FAILED = 1000;

/**
 * Stable job id per key: adding a job for a key that already has one is a no-op (PushQueue's
 * enqueue removes a finished one first, so a row queued again gets a job).
 */
export function jobId(key: string): string {
  return `scn-${createHash("sha1").update(key).digest("hex")}`;
}

export function jobOptions(key: string, maxAttempts: number) {
  return {
    jobId: jobId(key),
    attempts: maxAttempts,
    backoff: { type: "exponential", delay: 1000 },
    removeOnComplete: { count: KEEP_COMPLETED },
    removeOnFail: { count: KEEP_FAILED },
  };
}

export class RetryLaterError extends Error {
  override name = "RetryLaterError";
}

/** Runs the plain function; a transient failure is thrown so BullMQ retries with backoff. */
export async function process(
  data: unknown,
  attempt: { made: number; max: number; rateLimitWaits: number },
  deps: CreateDeps,
): Promise<Exclude<CreateResult, { status: "retry" }>> {
  const { key } = payloadSchema.parse(data);
  const result = await createScenarioFor(deps, key, {
    final: attempt.made + 1 >= attempt.max,
    rateLimitWaits: attempt.rateLimitWaits,
  });
  if (result.status === "retry") throw new RetryLaterError(`${result.code}: ${result.message}`);
  return result;
}
