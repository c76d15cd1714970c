/**
 * One company is never synced twice at once: a second sync that finds the company's lease held
 * is skipped and says by whom; a holder on this host whose process died is taken over at once.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaticTokenProvider } from "../../src/api/auth.js";
import { TasClient } from "../../src/api/client.js";
import { HttpTransport } from "../../src/api/http.js";
import { createLogger } from "../../src/log.js";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/index.js";
import { syncCompany } from "../../src/sync/company.js";

const logger = createLogger({ level: "silent", pretty: false });
let sim: RunningSimulator;
let dir: string;
let store: SqliteStore;
let http: HttpTransport;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, companies: 1, plans: 4, reports: 0 });
  dir = mkdtempSync(join(tmpdir(), "tas-lease-"));
  store = openSqliteStore(join(dir, "t.db"));
  http = new HttpTransport({
    timeoutMs: 10_000,
    maxAttempts: 1,
    maxRequestsPerSecond: 1000,
    connections: 4,
    logger,
  });
});
afterAll(async () => {
  await http.close();
  await store.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function deps() {
  const company = sim.companies[0];
  if (!company) throw new Error("no company");
  const client = new TasClient({
    http,
    baseUrl: sim.baseUrl,
    auth: new StaticTokenProvider(company.staticToken),
    companyId: company.id,
    maxAttempts: 1,
    logger,
  });
  return {
    deps: { store, client, logger },
    input: { companyId: company.id, reportIds: [], trigger: "test" },
  };
}

describe("the lease of a company", () => {
  it("skips a second sync while the first one holds the company, saying by whom", async () => {
    await fetch(`${sim.baseUrl}/__admin/faults`, {
      method: "PUT",
      body: JSON.stringify({ planListDelayOnceMs: 1500 }),
    });
    const { deps: d, input } = deps();
    const first = syncCompany(d, input);
    // The first holds the lease (its slow list is held by the simulator) when the second starts.
    while (sim.state.stats.held === 0) await new Promise((r) => setTimeout(r, 10));
    const second = await syncCompany(d, input);
    expect(second.status).toBe("skipped");
    expect(second.runId).toBeNull();
    expect(second.errors[0]).toMatch(
      new RegExp(`^skipped: company \\d+ is being synced by ${hostname()}:${process.pid} \\(lease until `),
    );
    expect((await first).status).toBe("succeeded");
    // Released: the next one runs.
    expect((await syncCompany(d, input)).status).toBe("succeeded");
  });

  it("takes over at once the lease of a process of this host that died", async () => {
    const { deps: d, input } = deps();
    const child = spawn(process.execPath, ["-e", "0"]);
    await new Promise((r) => child.once("exit", r));
    const dead = { host: hostname(), pid: child.pid as number };
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const taken = await store.runs.acquireLease(
      input.companyId,
      { token: "dead-one", owner: dead, expiresAt },
      new Date().toISOString(),
      () => false,
    );
    expect(taken).toEqual({ ok: true });
    expect((await syncCompany(d, input)).status).toBe("succeeded");
  });
});
