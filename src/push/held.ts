/**
 * A company whose credentials are refused holds back its own rows only: they wait `held`,
 * saying why, and every other company's rows go on. They go on once the credentials work
 * again: a probe (one held row, sent now and then by the reconciler) that gets any answer but
 * a refusal releases the rest; `resume-push --company ID` releases them at once.
 */
import type { Logger } from "../log.js";
import type { OutboxStore, Settle } from "../store/port-outbox.js";
import { queueReady } from "./settle.js";

export const CREDENTIALS_REFUSED = "CREDENTIALS_REFUSED";

/** Why a company's rows are held, for its rows (last_error), push-failures and status. */
export function refusedCredentials(
  companyId: number,
  how: { renewable: boolean; tokenEndpoint: boolean },
  detail: string,
): Settle {
  const what = how.tokenEndpoint
    ? `the token endpoint refuses company ${companyId}'s username and password`
    : how.renewable
      ? `the service refuses company ${companyId}'s token even after authenticating again`
      : `the service refuses company ${companyId}'s static token (auth.token)`;
  return {
    code: CREDENTIALS_REFUSED,
    message: `${what} (${detail}); its rows wait until the credentials work (tried again now and then), or run: tas-sync resume-push --company ${companyId}`,
  };
}

/** Hold the company's rows not yet sent; logs once per hold (the first job of the company to meet it). */
export async function holdCompany(
  outbox: OutboxStore,
  logger: Logger,
  companyId: number,
  why: Settle,
  now: string,
): Promise<void> {
  const held = await outbox.hold(companyId, why, now);
  if (held > 0)
    logger.error(
      { companyId, held },
      `PUSH HELD for company ${companyId}: ${why.message}. Other companies' rows go on.`,
    );
}

/**
 * Held rows back to pending (one company, or all) and queued where ready. Returns the keys to
 * enqueue, and how many rows were released.
 */
export async function releaseHeld(
  outbox: OutboxStore,
  companyId: number | undefined,
  now: string,
): Promise<{ released: number; ready: string[] }> {
  const released = await outbox.release(companyId, now);
  if (released === 0) return { released, ready: [] };
  return { released, ready: await queueReady(outbox, now, companyId === undefined ? {} : { companyId }) };
}

/** A probe got an answer that is not a refusal: the company's credentials work again. */
export async function afterProbe(
  outbox: OutboxStore,
  logger: Logger,
  companyId: number,
  now: string,
): Promise<string[]> {
  const { released, ready } = await releaseHeld(outbox, companyId, now);
  if (released > 0)
    logger.info(
      { companyId, released },
      `company ${companyId}'s credentials work again: its held rows go on`,
    );
  return ready;
}
