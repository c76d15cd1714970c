/**
 * `tas-sync prune` through the built CLI: --dry-run counts and removes nothing, then prune
 * removes the same rows and prints them per table; the service's secrets may be unset.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";
import { sqlOn, storeKinds } from "../support/stores.js";

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-prune-cli-"));
}, 120_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.each(storeKinds())("tas-sync prune on $name", (kind) => {
  afterAll(() => kind.cleanup());

  it("counts with --dry-run, then removes and prints what it removed per table", async () => {
    const database = await kind.fresh({ migrated: true });
    const store = await kind.open(database);
    const sql = sqlOn(kind, store);
    const old = new Date(Date.now() - 120 * 86_400_000).toISOString();
    try {
      for (let i = 0; i < 4; i++) {
        const id = await sql.scalar<number>(
          "INSERT INTO sync_runs (company_id, trigger, started_at, finished_at, status) VALUES (7, 's', ?, ?, 'failed') RETURNING id",
          old,
          old,
        );
        await sql.rows(
          "INSERT INTO sync_errors (run_id, entity, code, message) VALUES (?, 'plans', 'TIMEOUT', 'x') RETURNING id",
          id,
        );
      }
    } finally {
      await store.close();
    }
    const config = join(dir, `${kind.name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: "http://127.0.0.1:9",
        database,
        logLevel: "warn",
        companies: [{ id: 7, auth: { token: "env:TAS_PRUNE_UNSET_TOKEN" } }],
        retention: { runs: "30d" },
      }),
    );
    const dry = await cli(["prune", "--dry-run", "--config", config]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/would remove/);
    expect(dry.stdout).toMatch(/sync_runs\s+3\s/);
    expect(dry.stdout).toMatch(/sync_errors\s+3\s/);
    expect(dry.stdout).toMatch(/scenario_requests\s+0\s+kept for ever/);
    const real = await cli(["prune", "--json", "--config", config]);
    expect(real.code, real.stderr).toBe(0);
    const json = JSON.parse(real.stdout) as { dry_run: boolean; removed: Record<string, number> };
    expect(json.dry_run).toBe(false);
    expect(json.removed).toMatchObject({ sync_runs: 3, sync_errors: 3, rejected_records: 0 });
    const again = await cli(["prune", "--config", config]);
    expect(again.stdout).toMatch(/sync_runs\s+0\s/);
    const after = await kind.open(database);
    try {
      expect(Number(await sqlOn(kind, after).scalar("SELECT count(*) FROM sync_runs"))).toBe(1);
    } finally {
      await after.close();
    }
  });
});
