import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSyncCommand } from "../../src/commands/sync.js";
import { UsageError } from "../../src/commands/types.js";
import { parseConfig } from "../../src/config/index.js";
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET } from "../../src/simulator/server.js";
import { type StoreKind, storeKind, storeKinds } from "../support/stores.js";
import { FIRST, type Harness, logger, reportIdsOf, SECOND, startHarness } from "./sync-harness.js";

const TOKEN_ROUTE = "POST /oauth/token";
const PLANS_ROUTE = "GET /api/plans";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let h: Harness;
/** The database runSyncCommand writes to (fresh, not opened before the command). */
let cliDatabase: string;
function harnessPerTest(kind: StoreKind) {
  beforeEach(async () => {
    h = await startHarness(kind, { tokenTtlSeconds: 1 });
    cliDatabase = await h.freshDatabase();
  });
  afterEach(() => h.close());
  afterAll(() => kind.cleanup());
}

/** A config for the simulator with password-grant auth; `password` overrides every company's. */
function config(companies: number[], password?: string) {
  return parseConfig(
    {
      baseUrl: h.sim.baseUrl,
      database: cliDatabase,
      http: { timeoutMs: 2000, maxAttempts: 2, maxRequestsPerSecond: 1000 },
      companies: companies.map((id) => ({
        id,
        reportIds: reportIdsOf(h.sim, id),
        auth: {
          tokenUrl: h.sim.tokenUrl,
          clientId: SIM_CLIENT_ID,
          clientSecret: SIM_CLIENT_SECRET,
          username: `user${id}`,
          password: password ?? `pass-${id}`,
        },
      })),
    },
    "(test)",
    {},
  );
}

async function runCommand(companies: number[], password?: string) {
  const out: string[] = [];
  const code = await runSyncCommand(config(companies, password), { logger, out: (l) => out.push(l) });
  return { code, out };
}

// Token renewal is the HTTP client's business: the store plays no part, one kind is enough.
describe("password grant", () => {
  harnessPerTest(storeKind("sqlite"));
  it("obtains a new token when the old one expired between two syncs", async () => {
    const client = h.client(FIRST, h.passwordAuth(FIRST));
    expect((await h.sync(FIRST, { client })).status).toBe("succeeded");
    await sleep(1500);
    const second = await h.sync(FIRST, { client });
    expect(second.status).toBe("succeeded");
    expect(second.counts.unchanged).toBe(8);
    // Renewed before use (at least one new grant), and the service never had to refuse a token.
    expect(h.sim.state.stats.count(TOKEN_ROUTE, 200)).toBeGreaterThanOrEqual(2);
    expect(h.sim.state.stats.count(PLANS_ROUTE, 401)).toBe(0);
  });

  it("authenticates again once when the service refuses a token it thought valid", async () => {
    // A stopped clock: the provider keeps the expired token until the service says 401.
    const frozen = Date.now();
    const client = h.client(FIRST, h.passwordAuth(FIRST, { now: () => frozen }));
    expect((await h.sync(FIRST, { client, reportIds: [] })).status).toBe("succeeded");
    await sleep(1100);
    const second = await h.sync(FIRST, { client, reportIds: [] });
    expect(second.status).toBe("succeeded");
    expect(h.sim.state.stats.count(PLANS_ROUTE, 401)).toBe(1);
    expect(h.sim.state.stats.count(PLANS_ROUTE, 200)).toBe(2);
    expect(h.sim.state.stats.count(TOKEN_ROUTE, 200)).toBe(2);
  });
});

describe.each(storeKinds())("runSyncCommand on $name", (kind) => {
  harnessPerTest(kind);
  it("syncs every configured company and prints one summary line each", async () => {
    const { code, out } = await runCommand([FIRST, SECOND]);
    expect(code).toBe(0);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(
      /^company 5251: succeeded in \d+\.\ds \(run \d+\) - fetched 8, inserted 8, updated 0, unchanged 0, deleted 0, rejected 0$/,
    );
    expect(out[1]).toMatch(/^company 5252: succeeded .* fetched 8, inserted 8/);
    const cli = h.sqlOn(await h.openStore(cliDatabase));
    expect(await cli.rows("SELECT company_id, count(*) AS n FROM plans GROUP BY 1 ORDER BY 1")).toEqual([
      { company_id: FIRST, n: 6 },
      { company_id: SECOND, n: 6 },
    ]);
  });

  it("fails with one clear error line on a wrong password and stores no secret", async () => {
    const password = "wrong-Pa55word-xyzzy";
    const { code, out } = await runCommand([FIRST], password);
    expect(code).toBe(1);
    expect(out[0]).toMatch(/^company 5251: failed /);
    const problems = out.filter((l) => l.startsWith("  ! "));
    // Which login was refused and where to fix it: the token URL, the user, the config keys.
    expect(problems).toEqual([
      `  ! token: HTTP 401 INVALID_CLIENT: Bad credentials; ${h.sim.tokenUrl} refused user "user5251" or its OAuth2 client: check companies[0].auth.username and companies[0].auth.password, then companies[0].auth.clientId and companies[0].auth.clientSecret`,
    ]);
    // One password grant, not one per report.
    expect(h.sim.state.stats.count(TOKEN_ROUTE)).toBe(1);
    expect(h.sim.state.stats.count(PLANS_ROUTE)).toBe(0);

    const cli = h.sqlOn(await h.openStore(cliDatabase));
    expect(await cli.scalar("SELECT status FROM sync_runs")).toBe("failed");
    expect(await cli.scalar("SELECT code FROM sync_errors")).toBe("INVALID_CLIENT");
    const secrets = [
      password,
      SIM_CLIENT_SECRET,
      Buffer.from(`${SIM_CLIENT_ID}:${SIM_CLIENT_SECRET}`).toString("base64"),
    ];
    const text = [out.join("\n")];
    for (const table of ["sync_runs", "sync_errors", "rejected_records"]) {
      for (const row of await cli.rows(`SELECT * FROM ${table}`)) text.push(JSON.stringify(row));
    }
    expect(text.length).toBeGreaterThan(2);
    for (const s of secrets) expect(text.join("\n")).not.toContain(s);
  });

  it("refuses a company that is not configured as a usage error (exit code 2)", async () => {
    const out: string[] = [];
    const run = runSyncCommand(config([FIRST]), { companyId: 42, logger, out: (l) => out.push(l) });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow("company 42 is not in the config (configured: 5251)");
    expect(out).toEqual([]);
  });
});
