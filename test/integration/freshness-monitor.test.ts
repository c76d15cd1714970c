/**
 * The daemon's freshness monitor on a real store: one alert per change of a company's health,
 * and a run still in progress is no news (the retry after a failure is not a recovery). The
 * policy is the monitor's, the same on every store: SQLite.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type AlertPayload, WebhookSender } from "../../src/alerts/webhook.js";
import { type Config, parseConfig } from "../../src/config/index.js";
import { FreshnessMonitor } from "../../src/daemon/freshness-monitor.js";
import { createLogger } from "../../src/log.js";
import { Secret } from "../../src/secret.js";
import type { Store } from "../../src/store/port.js";
import { emptyCounts, type RunStatus } from "../../src/store/port-runs.js";
import { freshness } from "../../src/sync/freshness.js";
import { storeKind } from "../support/stores.js";

const logger = createLogger({ level: "silent", pretty: false });
const COMPANY = 7;
const T0 = new Date("2025-01-01T00:00:00.000Z");

/** Keeps what would be posted instead of posting it. */
class Kept extends WebhookSender {
  readonly events: string[] = [];
  override send(payload: AlertPayload): void {
    this.events.push(payload.event);
  }
}

describe("the freshness monitor", () => {
  const kind = storeKind("sqlite");
  let store: Store;
  afterEach(() => store?.close());
  afterAll(() => kind.cleanup());

  it("sends no recovery while the retry of a failed company is still running", async () => {
    const database = await kind.fresh();
    store = await kind.open(database);
    const cfg: Config = parseConfig(
      {
        baseUrl: "http://127.0.0.1:9/Testinium.RestApi",
        database,
        sync: { every: "1s", staleAfter: "1h" },
        companies: [{ id: COMPANY, auth: { token: "t" } }],
      },
      "(test)",
    );
    const sender = new Kept({ url: new Secret("http://127.0.0.1:9/hook"), timeoutMs: 100, logger });
    const now = () => T0;
    const monitor = new FreshnessMonitor({
      cfg,
      store,
      logger,
      sender,
      now,
      states: async () => freshness(cfg, await store.runs.companyStates([COMPANY]), now(), T0),
    });
    const start = () =>
      store.runs.start({
        companyId: COMPANY,
        trigger: "test",
        startedAt: T0.toISOString(),
        owner: { host: "test", pid: 1 },
      });
    const finish = (id: number, status: Exclude<RunStatus, "running">) =>
      store.runs.finish(id, {
        status,
        counts: emptyCounts(),
        finishedAt: T0.toISOString(),
        error: status === "failed" ? "HTTP 401" : null,
      });

    await finish(await start(), "failed");
    await monitor.check();
    expect(sender.events).toEqual(["sync_failed"]);

    const retry = await start();
    await monitor.check();
    expect(sender.events).toEqual(["sync_failed"]);
    await finish(retry, "failed");
    await monitor.check();
    expect(sender.events).toEqual(["sync_failed"]);

    await finish(await start(), "succeeded");
    await monitor.check();
    expect(sender.events).toEqual(["sync_failed", "company_recovered"]);
  });
});
