/**
 * `tas-sync replay` through the built CLI: with the service gone and its secret unset, the
 * stored records are made into rows again, one summary line per company, exit 0.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { cli, ensureBuilt } from "../support/built-cli.js";
import { storeKinds } from "../support/stores.js";

let sim: RunningSimulator | null;
let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-replay-cli-"));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(storeKinds())("tas-sync replay on $name", (kind) => {
  afterAll(() => kind.cleanup());

  it("rewrites the stored records with the service down and its token unset", async () => {
    sim = await startSimulator({ port: 0, companies: 1, plans: 5, reports: 1 });
    const company = sim.companies[0];
    if (!company) throw new Error("no company");
    const config = join(dir, `${kind.name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: sim.baseUrl,
        database: await kind.fresh(),
        logLevel: "warn",
        companies: [
          { id: company.id, reportIds: company.reportIds, auth: { token: "env:TAS_REPLAY_TOKEN" } },
        ],
      }),
    );
    const synced = await cli(["sync", "--config", config], { TAS_REPLAY_TOKEN: company.staticToken });
    expect(synced.code, synced.stderr).toBe(0);
    await sim.close();
    sim = null;
    const r = await cli(["replay", "--config", config]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `^company ${company.id}: succeeded in [\\d.]+s \\(run 2\\) - fetched 0, inserted 0, updated 0, unchanged 6, deleted 0, rejected 0\\n$`,
      ),
    );
  });
});
