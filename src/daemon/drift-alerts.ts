/**
 * The daemon's telemetry: the metrics hear everything, and a run that recorded schema changes
 * also sends one alert (the webhook, when configured) and logs it. Only the daemon that ran the
 * sync hears of its changes, so each run is alerted once whatever the number of daemons.
 */
import { hostname } from "node:os";
import type { WebhookSender } from "../alerts/webhook.js";
import type { Logger } from "../log.js";
import { driftAlert } from "../observed/drift.js";
import type { Telemetry } from "../telemetry.js";

export interface DriftAlertDeps {
  /** Where alerts go; null: logged only. */
  sender: WebhookSender | null;
  logger: Logger;
  now?: () => Date;
}

export function withDriftAlerts(base: Telemetry, deps: DriftAlertDeps): Telemetry {
  return {
    httpRequest: (operation, status) => base.httpRequest(operation, status),
    httpRetry: (operation) => base.httpRetry(operation),
    rateLimitWait: (operation, seconds) => base.rateLimitWait(operation, seconds),
    syncFinished: (companyId, outcome, seconds, records) =>
      base.syncFinished(companyId, outcome, seconds, records),
    pushOutcome: (outcome, code) => base.pushOutcome(outcome, code),
    schemaChanged(companyId, runId, changes) {
      base.schemaChanged(companyId, runId, changes);
      if (changes.length === 0) return;
      // Telemetry never fails a sync: a bad alert is logged, not thrown.
      try {
        const at = (deps.now ?? (() => new Date()))();
        const alert = driftAlert(companyId, runId, changes, { at, host: hostname() });
        deps.logger.warn({ companyId, runId, event: alert.event, changes: alert.changes }, alert.summary);
        deps.sender?.send(alert);
      } catch (err) {
        deps.logger.error({ companyId, runId, err: (err as Error).message }, "schema change alert not sent");
      }
    },
  };
}
