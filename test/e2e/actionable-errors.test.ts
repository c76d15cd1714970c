/**
 * Errors a person can act on: a service that cannot be reached is named by host and port (and
 * the proxy the request went through); an unknown config key gets the known key it is closest to.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, ensureBuilt } from "../support/built-cli.js";

let dir: string;

/** A port nothing listens on: bound, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

function writeConfig(name: string, config: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(config));
  return path;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-actionable-"));
}, 120_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("errors that say where", () => {
  const unreachable = async (port: number) =>
    writeConfig(`unreachable-${port}.json`, {
      baseUrl: `http://127.0.0.1:${port}/Testinium.RestApi`,
      auth: {
        tokenUrl: `http://127.0.0.1:${port}/Testinium.RestApi/oauth/token`,
        clientId: "c",
        clientSecret: "s",
        username: "u",
        password: "p",
      },
      companies: [{ id: 5251 }],
      database: join(dir, `unreachable-${port}.db`),
      http: { maxAttempts: 1 },
    });

  it("names the host and port of a service that refuses the connection", async () => {
    const port = await closedPort();
    const r = await cli(["sync", "--config", await unreachable(port)], { HTTP_PROXY: "", http_proxy: "" });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`token CONNECTION_FAILED: cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`);
  });

  it("names the proxy a request went through, and not one NO_PROXY bypasses", async () => {
    const [port, proxyPort] = [await closedPort(), await closedPort()];
    const config = await unreachable(port);
    const proxy = `http://127.0.0.1:${proxyPort}`;
    const through = await cli(["sync", "--config", config], { HTTP_PROXY: proxy, NO_PROXY: "" });
    expect(through.stdout).toContain(
      `cannot connect to 127.0.0.1:${port} through proxy http://127.0.0.1:${proxyPort}/ (ECONNREFUSED)`,
    );
    const bypassed = await cli(["sync", "--config", config], { HTTP_PROXY: proxy, NO_PROXY: "127.0.0.1" });
    expect(bypassed.stdout).toContain(`cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`);
  });

  it("suggests the config key a misspelled one is closest to", async () => {
    const config = writeConfig("typo.json", {
      baseUrl: "https://tas.example.com/R",
      auth: { token: "t" },
      companies: [{ id: 5251, evry: "20s" }],
      sycn: {},
    });
    const r = await cli(["sync", "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('companies[0]: unknown key "evry" (did you mean "every"?)');
    expect(r.stderr).toContain('(root): unknown key "sycn" (did you mean "sync"?)');
  });
});
