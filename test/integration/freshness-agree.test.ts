/**
 * status, tas_sync_company_stale and tas_sync_last_success_timestamp_seconds read one fact: the
 * start of the company's last run that ended succeeded or partial. A partial run counts for all
 * three; a failed one for none. Checked from runs in a real store of each kind to the text of
 * /metrics.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { Metrics } from "../../src/metrics.js";
import type { Store } from "../../src/store/port.js";
import { emptyCounts, type RunEnd } from "../../src/store/port-runs.js";
import { freshness } from "../../src/sync/freshness.js";
import { storeKinds } from "../support/stores.js";

const COMPANY = 5251;
const cfg = parseConfig(
  { baseUrl: "https://tas.example.com/R", auth: { token: "t" }, companies: [{ id: COMPANY, every: "1m" }] },
  "(test)",
  {},
);
const T0 = "2025-03-01T10:00:00.000Z";
const T1 = "2025-03-01T10:01:00.000Z";
const T2 = "2025-03-01T10:02:00.000Z";
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe.each(storeKinds())("freshness on $name", (kind) => {
  let store: Store;
  beforeEach(async () => {
    store = await kind.open(await kind.fresh());
  });
  afterEach(async () => {
    await store.close();
  });
  afterAll(async () => {
    await kind.cleanup();
  });

  async function run(startedAt: string, status: RunEnd["status"]): Promise<void> {
    const id = await store.runs.start({
      companyId: COMPANY,
      trigger: "test",
      startedAt,
      owner: { host: "h", pid: 1 },
    });
    await store.runs.finish(id, { status, counts: emptyCounts(), finishedAt: startedAt, error: null });
  }

  /** What status reads (its clock at `now`), and what a scrape of /metrics says at the same moment. */
  async function views(now: string) {
    const states = await store.runs.companyStates([COMPANY]);
    // status measures a company that never synced from the epoch.
    const [status] = freshness(cfg, states, new Date(now), new Date(0));
    const metrics = new Metrics({
      freshness: async () => freshness(cfg, states, new Date(now), new Date(0)),
      queueCounts: async () => [],
    });
    const text = await metrics.registry.metrics();
    const sample = (name: string) =>
      new RegExp(`^${name}\\{company="${COMPANY}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? null;
    return {
      status,
      timestamp: sample("tas_sync_last_success_timestamp_seconds"),
      stale: sample("tas_sync_company_stale"),
    };
  }

  it("counts a company whose runs end partial as fresh everywhere, with its timestamp", async () => {
    await run(T0, "partial");
    await run(T1, "partial");
    const v = await views(T2);
    expect(v.status?.stale).toBe(false);
    expect(v.status?.lastSuccessAt?.toISOString()).toBe(T1);
    expect(v.stale).toBe("0");
    expect(v.timestamp).toBe(String(seconds(T1)));
  });

  it("moves none of them with a failed run, and all of them to stale once the time has passed", async () => {
    await run(T0, "succeeded");
    await run(T1, "failed");
    const soon = await views(T2);
    expect(soon.status).toMatchObject({ stale: false, failing: true });
    expect(soon.status?.lastSuccessAt?.toISOString()).toBe(T0);
    expect(soon.timestamp).toBe(String(seconds(T0)));
    expect(soon.stale).toBe("0");
    // Three periods of one minute after T0.
    const later = await views("2025-03-01T10:03:00.001Z");
    expect(later.status?.stale).toBe(true);
    expect(later.stale).toBe("1");
    expect(later.timestamp).toBe(String(seconds(T0)));
  });

  it("gives a company that never had a succeeded or partial run no timestamp and calls it stale", async () => {
    await run(T0, "failed");
    const v = await views(T2);
    expect(v.status?.stale).toBe(true);
    expect(v.timestamp).toBeNull();
    expect(v.stale).toBe("1");
  });
});
