/**
 * Many processes opening a new database at once (several daemons starting together, a cron sync
 * beside a migrate) all succeed: the migrations are applied once, under one lock. The processes
 * are real; each waits for a common instant before opening, so that they really collide.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/index.js";
import { ensureBuilt, ROOT } from "../support/built-cli.js";

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-open-"));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROCESSES = 12;
const ROUNDS = 3;

/** Opens (and so migrates) `db` at the instant `at` (ms since the epoch); exits 1 with the error. */
const OPENER = `
const [db, at, modulePath] = process.argv.slice(1);
const { openSqliteStore } = await import(modulePath);
const wait = Number(at) - Date.now();
if (wait > 2) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait - 2);
while (Date.now() < Number(at)) {}
try { await openSqliteStore(db).close(); } catch (err) { console.error(err.message); process.exit(1); }
`;

function opener(db: string, at: number): Promise<{ code: number | null; stderr: string }> {
  const module = pathToFileURL(join(ROOT, "dist/src/store/sqlite/index.js")).href;
  const child = spawn(process.execPath, ["--input-type=module", "-e", OPENER, db, String(at), module]);
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("concurrent first opens", () => {
  it(`lets ${PROCESSES} processes open one new database at the same instant, ${ROUNDS} times over`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const db = join(dir, `round-${round}.db`);
      // Far enough ahead for every process to have started and loaded the driver.
      const at = Date.now() + 3000;
      const runs = await Promise.all(Array.from({ length: PROCESSES }, () => opener(db, at)));
      expect(runs.filter((r) => r.code !== 0).map((r) => r.stderr)).toEqual([]);
      const store = openSqliteStore(db, { migrate: false });
      try {
        const names = store.sqlite.prepare("SELECT count(*) FROM __drizzle_migrations").pluck().get();
        const journal = store.sqlite
          .prepare("SELECT count(DISTINCT hash) FROM __drizzle_migrations")
          .pluck()
          .get();
        // Each migration applied exactly once.
        expect(names).toBe(journal);
        expect(names).toBeGreaterThanOrEqual(5);
      } finally {
        await store.close();
      }
    }
  }, 120_000);
});
