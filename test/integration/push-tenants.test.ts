/**
 * Push for many companies, with real processes (a `tas-sync daemon` and the CLI, built) on both
 * stores: one company's trouble holds back that company's rows only.
 * - Its token refused (static, or a password grant still refused after authenticating again):
 *   its rows wait `held`, saying why (push-failures, status); every other company's rows are
 *   created meanwhile and the queue never pauses; once the service takes the credentials
 *   again they go on by themselves (the daemon's probe), or with resume-push --company.
 * - A 429 storm on its token: the other company's rows are all created while the storm lasts.
 * Every row is created exactly once by the service's own count (its names are not unique).
 */
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CREATE_ROUTE } from "../../src/simulator/router.js";
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET } from "../../src/simulator/server.js";
import { cli, ensureBuilt } from "../support/built-cli.js";
import { type RunningDaemon, startDaemon, until } from "../support/daemon.js";
import { storeKinds } from "../support/stores.js";
import { notOnce, type PushHarness, type SeedLine, seedRow, startPushHarness } from "./push-harness.js";

const GOOD = 5251;
const BAD = 5252;
const GOOD_PROJECT = 52511;
const BAD_PROJECT = 52521;

beforeAll(async () => {
  await ensureBuilt();
}, 180_000);

/** 40 rows: 10 of the troubled company first (they are queued first), then 30 of the other. */
function rows(tag: string): SeedLine[] {
  return [
    ...Array.from({ length: 10 }, (_, i) =>
      seedRow(`${tag}-bad-${i}`, { company_id: BAD, project_id: BAD_PROJECT }),
    ),
    ...Array.from({ length: 30 }, (_, i) =>
      seedRow(`${tag}-good-${i}`, { company_id: GOOD, project_id: GOOD_PROJECT }),
    ),
  ];
}

const keysOf = (lines: SeedLine[]) => lines.map((r) => r.key as string);
const jsonLines = (out: string) =>
  out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe.each(storeKinds())("push for two companies on $name", (kind) => {
  let h: PushHarness | undefined;
  let daemon: RunningDaemon | undefined;
  afterEach(async () => {
    // A test that failed while the daemon was frozen leaves it stopped: it must hear SIGTERM.
    daemon?.kill("SIGCONT");
    daemon?.kill("SIGTERM");
    if (daemon) expect((await daemon.exited).code).toBe(0);
    daemon = undefined;
    await h?.close();
    h = undefined;
  });
  afterAll(() => kind.cleanup());

  async function harness(config: (sim: PushHarness["sim"]) => Record<string, unknown>) {
    h = await startPushHarness(kind, {
      sim: { companies: 2 },
      config: (sim) => ({
        logLevel: "info",
        push: {
          ratePerSecond: 200,
          concurrency: 4,
          maxAttempts: 3,
          lockDurationMs: 2000,
          reconcileEveryMs: 300,
        },
        ...config(sim),
      }),
    });
    return h;
  }

  const byCompany = async (t: PushHarness) =>
    t.rows<{ company_id: number; status: string; n: number }>(
      "SELECT company_id, status, count(*) AS n FROM scenario_requests GROUP BY company_id, status ORDER BY 1, 2",
    );
  const count = async (t: PushHarness, companyId: number, status: string) =>
    (await byCompany(t)).find((r) => r.company_id === companyId && r.status === status)?.n ?? 0;

  async function daemonOn(t: PushHarness): Promise<RunningDaemon> {
    daemon = startDaemon(["--no-sync", "--no-server", "--config", t.configPath], { TAS_LOG_FORMAT: "json" });
    await daemon.waitFor((l) => l.msg === "daemon started", "the daemon to start");
    return daemon;
  }

  it("holds only the company whose static token is refused, and lets its rows go on by themselves", async () => {
    const t = await harness(() => ({}));
    await t.setFaults({ refuseCompanyId: BAD });
    const d = await daemonOn(t);
    const seed = rows("static");
    expect((await cli(["push", t.seed("two.ndjson", seed), "--config", t.configPath])).code).toBe(0);

    await until("the good company's 30 rows created", async () =>
      (await count(t, GOOD, "created")) === 30 ? true : undefined,
    );
    // The daemon probes one held row every 300 ms: freeze it between two probes, all ten held,
    // and read push-failures and status while it stands still. A statement the daemon sent before
    // the freeze (a probe's COMMIT, on PostgreSQL) still lands after it, so the reads are kept
    // only when ten were held both before and after them; else the daemon goes on and they are
    // read again.
    const { held, status } = await until(
      "all ten held, read while the daemon stood still",
      async () => {
        d.kill("SIGSTOP");
        if ((await count(t, BAD, "held")) === 10) {
          const failures = await cli(["push-failures", "--held", "--json", "--config", t.configPath]);
          const status = await cli(["status", "--config", t.configPath]);
          if ((await count(t, BAD, "held")) === 10) return { held: jsonLines(failures.stdout), status };
        }
        d.kill("SIGCONT");
        return undefined;
      },
      60_000,
    );
    const queue = new Queue("push", { connection: t.redis, prefix: t.prefix });
    try {
      expect(await queue.isPaused()).toBe(false);
    } finally {
      await queue.close();
    }
    expect(held).toHaveLength(10);
    for (const row of held)
      expect(row).toMatchObject({
        company_id: BAD,
        status: "held",
        error_code: "CREDENTIALS_REFUSED",
        last_error: expect.stringContaining(`the service refuses company ${BAD}'s static token (auth.token)`),
      });
    expect(status.stdout).toContain(
      `  held, company ${BAD} (10 row(s)): the service refuses company ${BAD}'s static token`,
    );
    expect(status.stdout).not.toContain("PAUSED");
    d.kill("SIGCONT");
    expect(d.logs().filter((l) => l.msg.startsWith(`PUSH HELD for company ${BAD}`)).length).toBeGreaterThan(
      0,
    );

    // The service takes the token again: the daemon's probe gets through, the rest follow.
    await t.setFaults({ refuseCompanyId: 0 });
    await until("the held rows created", async () =>
      (await count(t, BAD, "created")) === 10 ? true : undefined,
    );
    await d.waitFor(
      (l) => l.msg === `company ${BAD}'s credentials work again: its held rows go on`,
      "the release",
    );
    expect(notOnce(await t.createdPerKey(), keysOf(seed))).toEqual([]);
    expect(await byCompany(t)).toEqual([
      { company_id: GOOD, status: "created", n: 30 },
      { company_id: BAD, status: "created", n: 10 },
    ]);
  }, 120_000);

  it("holds a company whose password grant is still refused after authenticating again; resume-push --company lets it go on", async () => {
    const t = await harness((sim) => ({
      // Probes only once a minute: what lets the rows go on here is resume-push.
      push: {
        ratePerSecond: 200,
        concurrency: 4,
        maxAttempts: 3,
        lockDurationMs: 2000,
        reconcileEveryMs: 60_000,
      },
      companies: [
        { id: GOOD, auth: { token: sim.companies[0]?.staticToken } },
        {
          id: BAD,
          auth: {
            tokenUrl: sim.tokenUrl,
            clientId: SIM_CLIENT_ID,
            clientSecret: SIM_CLIENT_SECRET,
            username: `user${BAD}`,
            password: `pass-${BAD}`,
          },
        },
      ],
    }));
    await t.setFaults({ refuseCompanyId: BAD });
    await daemonOn(t);
    const seed = rows("grant");
    expect((await cli(["push", t.seed("two.ndjson", seed), "--config", t.configPath])).code).toBe(0);
    await until("the good company's rows created and the other's held", async () =>
      (await count(t, GOOD, "created")) === 30 && (await count(t, BAD, "held")) === 10 ? true : undefined,
    );
    const [row] = await t.rows<{ last_error: string }>(
      "SELECT last_error FROM scenario_requests WHERE company_id = ? AND status = 'held' LIMIT 1",
      BAD,
    );
    expect(row?.last_error).toContain(
      `the service refuses company ${BAD}'s token even after authenticating again`,
    );
    // It did authenticate again: more tokens than one were asked for.
    expect(t.sim.state.stats.count("POST /oauth/token", 200)).toBeGreaterThan(1);

    await t.setFaults({ refuseCompanyId: 0 });
    const resumed = await cli(["resume-push", "--company", String(BAD), "--config", t.configPath]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`10 held row(s) of company ${BAD} go on; 10 queued now`);
    await until("the held rows created", async () =>
      (await count(t, BAD, "created")) === 10 ? true : undefined,
    );
    expect(notOnce(await t.createdPerKey(), keysOf(seed))).toEqual([]);
  }, 90_000);

  it("creates every row of the other company while one company's token meets a 429 storm", async () => {
    const t = await harness(() => ({}));
    // Every request with the troubled company's token: 429, come back in a second.
    await t.setFaults({ rateLimitCompanyId: BAD, rateLimitRate: 1, retryAfterSeconds: 1 });
    await daemonOn(t);
    const seed = rows("storm");
    expect((await cli(["push", t.seed("two.ndjson", seed), "--config", t.configPath])).code).toBe(0);
    await until("the good company's 30 rows created", async () =>
      (await count(t, GOOD, "created")) === 30 ? true : undefined,
    );
    // ... while the storm still lasts: none of the other's created, and it did meet 429s.
    expect(await count(t, BAD, "created")).toBe(0);
    expect(t.sim.state.stats.count(CREATE_ROUTE, 429)).toBeGreaterThan(0);
    expect(await count(t, BAD, "failed")).toBe(0);

    await t.setFaults({ rateLimitRate: 0 });
    await until("the other company's rows created", async () =>
      (await count(t, BAD, "created")) === 10 ? true : undefined,
    );
    expect(notOnce(await t.createdPerKey(), keysOf(seed))).toEqual([]);
    // A 429 is not an attempt: each row was sent, as far as it counts, once.
    const attempts = await t.rows<{ attempts: number }>("SELECT attempts FROM scenario_requests");
    expect(attempts.every((r) => r.attempts === 1)).toBe(true);
  }, 90_000);
});
