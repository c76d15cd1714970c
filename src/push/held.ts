/**
 * A company whose credentials are refused holds back its own rows only: they wait `held`,
 * saying why, and every other company's rows go on. They go on once the credentials work
 * again: a probe (one held row, sent now and then by the reconciler) that the service answers
 * with anything but a refusal (created, exists, or a failure of the row's own) releases the
 * rest; a 5xx, a 429 or a lost answer tells nothing, and the probe is tried again.
 * `resume-push --company ID` releases them at once.
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
 * While a probe has no answer that says anything of the credentials (a 5xx, a 429, a lost
 * answer), its row keeps the held reason's code, so that its next attempt is the probe still.
 */
export function stillProbing(companyId: number, outcome: Settle): Settle {
  return {
    code: CREDENTIALS_REFUSED,
    message: `probing whether company ${companyId}'s credentials work again; the last attempt: ${outcome.message}`,
  };
}

/**
 * A probe got an answer that is not a refusal: the company's credentials work again. Its held
 * rows go back to pending; returns those of them (and any other of the company's) now queued.
 */
export async function afterProbe(
  outbox: OutboxStore,
  logger: Logger,
  companyId: number,
  now: string,
): Promise<string[]> {
  const released = await outbox.release(companyId, now);
  if (released === 0) return [];
  const ready = await queueReady(outbox, now, { companyId });
  logger.info({ companyId, released }, `company ${companyId}'s credentials work again: its held rows go on`);
  return ready;
}
