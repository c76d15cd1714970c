/**
 * Bull Board in a real browser: Debian's chromium (/usr/bin/chromium, installed by .ci/run)
 * driven by playwright-core, which downloads nothing. The page's React app must load its
 * assets through the server's Basic auth and list the daemon's queues.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/index.js";
import {
  PASSWORD,
  startTestServer,
  type TestQueues,
  testQueues,
  USER,
  withAuth,
} from "../integration/server-harness.js";

const CHROMIUM = "/usr/bin/chromium";

let browser: Browser;
let tq: TestQueues;
let server: RunningServer;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `this test needs Debian's chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does it)`,
    );
  }
  tq = await testQueues(["sync", "push"]);
  await tq.queues[1]!.add("create-scenario", { row: 1 });
  server = await startTestServer(tq.queues, withAuth);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await tq?.cleanup();
});

describe("the dashboard at /queues", () => {
  it("lists the sync and push queues, its assets loaded through Basic auth", async () => {
    const context = await browser.newContext({ httpCredentials: { username: USER, password: PASSWORD } });
    const page = await context.newPage();
    const origin = new URL(server.url).origin;
    const failed: string[] = [];
    // The page links a web font from Google; without the network it would hold the scripts back.
    await page.route("**/*", (route) => {
      const url = route.request().url();
      return new URL(url).origin === origin ? route.continue() : route.abort();
    });
    page.on("response", (res) => {
      if (res.url().startsWith(origin) && res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
    });

    const res = await page.goto(`${server.url}/queues`);
    expect(res?.status()).toBe(200);
    // Exact text: the board's title "tas-sync" must not pass for the queue "sync".
    await page.getByText("sync", { exact: true }).first().waitFor({ state: "visible" });
    await page.getByText("push", { exact: true }).first().waitFor({ state: "visible" });
    expect(await page.title()).toBe("tas-sync");
    expect(failed).toEqual([]);
    await context.close();
  });

  it("is refused to a browser with a wrong password", async () => {
    const context = await browser.newContext({ httpCredentials: { username: USER, password: "wrong" } });
    const page = await context.newPage();
    const res = await page.goto(`${server.url}/queues`);
    expect(res?.status()).toBe(401);
    expect((await page.locator("body").textContent())?.trim()).toBe("authentication required");
    await context.close();
  });
});
