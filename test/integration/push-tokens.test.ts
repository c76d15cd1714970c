/**
 * Short-lived tokens under 429s: the bearer token is attached after every wait (rate slot, 429,
 * backoff), so no request leaves with a token that expired while it waited, and the queue never
 * pauses with valid credentials. Simulator tokens of 2 s, 30% of creates answered 429. SQLite
 * only: token renewal and waits are the HTTP client's and the queue's; the store plays no part.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET } from "../../src/simulator/server.js";
import { storeKind } from "../support/stores.js";
import { COMPANY, flatRows, notOnce, type PushHarness, startPushHarness } from "./push-harness.js";

const kind = storeKind("sqlite");

let h: PushHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
afterAll(() => kind.cleanup());

describe("push with tokens that expire every 2 s and 30% 429s", () => {
  it("never pauses, and settles every row exactly once", async () => {
    h = await startPushHarness(kind, {
      sim: { tokenTtlSeconds: 2, faults: { rateLimitRate: 0.3, retryAfterSeconds: 1 } },
      config: (sim) => ({
        push: { ratePerSecond: 15, concurrency: 4, maxAttempts: 4, lockDurationMs: 5000 },
        companies: [
          {
            id: COMPANY,
            auth: {
              tokenUrl: sim.tokenUrl,
              clientId: SIM_CLIENT_ID,
              clientSecret: SIM_CLIENT_SECRET,
              username: `user${COMPANY}`,
              password: `pass-${COMPANY}`,
            },
          },
        ],
      }),
    });
    const t = h;
    const file = t.seed("tokens.ndjson", flatRows(60, "tok"));
    const run = await t.cli(["push", file, "--wait"]);
    expect(run.out).not.toContain("paused");
    expect(run.out).toContain("created 60, already existed 0, failed 0");
    expect(run.code).toBe(0);
    const stats = t.sim.state.stats;
    // The conditions held: many 429s, and tokens renewed many times over the run.
    expect(stats.count("POST /api/projects/:projectId/scenarios", 429)).toBeGreaterThan(10);
    expect(stats.count("POST /oauth/token", 200)).toBeGreaterThan(3);
    expect(
      notOnce(
        await t.createdPerKey(),
        flatRows(60, "tok").map((r) => r.key as string),
      ),
    ).toEqual([]);
    expect(await t.scenarios()).toHaveLength(60);
  }, 120_000);
});
