/**
 * Watches each company's health (failing, stale) and sends an alert when it changes: one
 * alert per change, even with several daemons (the store's compare-and-set elects the sender).
 * Without a webhook the changes are still logged.
 */
import { hostname } from "node:os";
import { type AlertEvent, alertsFor, healthKey } from "../alerts/transitions.js";
import { WebhookSender } from "../alerts/webhook.js";
import type { Config } from "../config/index.js";
import type { Logger } from "../log.js";
import type { Store } from "../store/port.js";
import type { CompanyFreshness } from "../sync/freshness.js";

const CHECK_MS = 10_000;

export interface MonitorDeps {
  cfg: Config;
  store: Store;
  logger: Logger;
  states: () => Promise<CompanyFreshness[]>;
  /** Where alerts go; by default the config's webhook (if any). */
  sender?: WebhookSender | null;
  everyMs?: number;
  now?: () => Date;
}

export class FreshnessMonitor {
  readonly #sender: WebhookSender | null;
  #timer: NodeJS.Timeout | null = null;
  #checking: Promise<void> | null = null;

  constructor(private readonly deps: MonitorDeps) {
    const url = deps.cfg.alerts.webhookUrl;
    this.#sender =
      deps.sender !== undefined
        ? deps.sender
        : url
          ? new WebhookSender({ url, timeoutMs: deps.cfg.alerts.timeoutMs, logger: deps.logger })
          : null;
  }

  start(): void {
    const every = this.deps.everyMs ?? Math.min(CHECK_MS, this.deps.cfg.sync.every);
    this.#timer = setInterval(() => void this.check(), every);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#checking;
    await this.#sender?.flush();
  }

  /** One look at every company (at most one at a time). */
  check(): Promise<void> {
    this.#checking ??= this.#check()
      .catch((err: Error) => this.deps.logger.warn({ err: err.message }, "freshness check failed"))
      .finally(() => {
        this.#checking = null;
      });
    return this.#checking;
  }

  async #check(): Promise<void> {
    const { store } = this.deps;
    const now = (this.deps.now ?? (() => new Date()))();
    const states = await this.deps.states();
    const alerted = new Map(
      (await store.runs.companyStates(states.map((s) => s.companyId))).map((s) => [
        s.companyId,
        s.alertState,
      ]),
    );
    for (const c of states) {
      const before = alerted.get(c.companyId) ?? null;
      // c.lastRun is the last finished run: a retry in progress does not read as a recovery.
      const next = healthKey(c);
      if (before === next || (before === null && next === "ok")) continue;
      const events = alertsFor(before, c);
      // Only the daemon whose compare-and-set wins sends (the others saw the same change).
      if (!(await store.runs.setAlertState(c.companyId, before, next, now.toISOString()))) continue;
      for (const event of events) this.#alert(event, c, now);
    }
  }

  #alert(event: AlertEvent, c: CompanyFreshness, now: Date): void {
    const level = event === "company_recovered" ? "info" : "warn";
    this.deps.logger[level](
      { companyId: c.companyId, event },
      `company ${c.companyId}: ${event.replace("_", " ")}`,
    );
    this.#sender?.send({
      event,
      company_id: c.companyId,
      at: now.toISOString(),
      host: hostname(),
      service: "tas-sync",
      failing: c.failing,
      stale: c.stale,
      stale_after_seconds: c.staleAfterMs / 1000,
      last_success_at: c.lastSuccessAt?.toISOString() ?? null,
      last_run: c.lastRun && {
        run_id: c.lastRun.id,
        status: c.lastRun.status,
        started_at: c.lastRun.startedAt,
        finished_at: c.lastRun.finishedAt,
        error: c.lastRun.error,
      },
    });
  }
}
