/** The daemon refuses to start a writable dashboard that anyone off this machine could drive. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-exposure-"));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("exits 2 with one line naming the keys, before it touches Redis or the database", async () => {
  const config = join(dir, "open.json");
  const database = join(dir, "never.db");
  writeFileSync(
    config,
    JSON.stringify({
      baseUrl: "http://127.0.0.1:9/R",
      auth: { token: "env:EXPOSURE_TOKEN" },
      companies: [{ id: 1 }],
      database,
      redisUrl: "redis://127.0.0.1:9",
      server: { host: "0.0.0.0", port: 0, allowUnauthenticated: true, dashboardWritable: true },
    }),
    { mode: 0o600 },
  );
  const run = await cli(["daemon", "--config", config], { EXPOSURE_TOKEN: "t" });
  expect(run.code).toBe(2);
  expect(run.stderr).toBe(
    "tas-sync daemon: server.dashboardWritable with server.allowUnauthenticated on server.host 0.0.0.0 would let anyone who reaches it retry, promote and remove push jobs: set server.username and server.password, set server.dashboardWritable to false, or set server.host to 127.0.0.1\n",
  );
});
