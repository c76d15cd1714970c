/**
 * The operator's home page (`/`) of a real `tas-sync daemon` (built CLI, SQLite, the simulator,
 * the real Redis under a fresh prefix), in a real browser: Debian's chromium driven by
 * playwright-core. One company syncs, one is refused its token; the page must show both rows as
 * they are, on a desktop and on a phone, behind the server's Basic auth. Screenshots are saved
 * (in TAS_TEST_SCREENSHOTS when set, to look at them; else in a temporary folder, removed).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSimulator, startSimulator } from "../../src/simulator/server.js";
import { ensureBuilt } from "../support/built-cli.js";
import { type RunningDaemon, startDaemon } from "../support/daemon.js";
import { testPrefix } from "../support/owner.js";

const CHROMIUM = "/usr/bin/chromium";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const USER = "ops";
const PASSWORD = "home page password";
const GOOD = 5251;
const REFUSED = 5252;

let browser: Browser;
let sim: RunningSimulator;
let daemon: RunningDaemon;
let url: string;
let dir: string;
let shots: string;
const prefix = testPrefix();

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `this test needs Debian's chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does it)`,
    );
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "tas-home-"));
  shots = process.env.TAS_TEST_SCREENSHOTS ?? join(dir, "shots");
  mkdirSync(shots, { recursive: true });
  sim = await startSimulator({ port: 0, plans: 20, reports: 1 });
  const [good, refused] = sim.companies;
  const config = join(dir, "tas-sync.config.json");
  writeFileSync(
    config,
    JSON.stringify({
      baseUrl: sim.baseUrl,
      database: join(dir, "tas.db"),
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
      server: { port: 0, username: USER, password: "env:HOME_PAGE_PASSWORD" },
      http: { timeoutMs: 2000, maxAttempts: 1 },
      companies: [
        { id: good?.id, reportIds: good?.reportIds, auth: { token: good?.staticToken }, every: "1h" },
        { id: refused?.id, reportIds: refused?.reportIds, auth: { token: "not-the-token" }, every: "1h" },
      ],
    }),
  );
  daemon = startDaemon(["--config", config], { HOME_PAGE_PASSWORD: PASSWORD });
  url = await daemon.url();
  // Both companies' first runs have ended (the schedulers run each once at start).
  for (const id of [GOOD, REFUSED])
    await daemon.waitFor(
      (l) => (l.msg === "sync finished" || l.msg === "sync failed") && l.companyId === id,
      `company ${id}'s first run`,
    );
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  daemon?.kill();
  await Promise.race([daemon?.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
  daemon?.kill("SIGKILL");
  await sim?.close();
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({
    viewport,
    httpCredentials: { username: USER, password: PASSWORD },
  });
  const page = await context.newPage();
  const res = await page.goto(`${url}/`);
  expect(res?.status()).toBe(200);
  return page;
}

/** What a function run in the page uses (this project's types have no DOM). */
interface InPage {
  getComputedStyle(element: unknown, pseudo: string): { content: string };
}

/** The visible text of a company's row, spaces folded. */
async function rowText(page: Page, id: number): Promise<string> {
  const row = page.locator(`tr[data-company="${id}"]`);
  await row.waitFor({ state: "visible" });
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person reads
  return ((await row.innerText()) ?? "").replace(/\s+/g, " ").trim();
}

describe("the home page at /", () => {
  it("shows each company's row as it is, with links to the dashboard and metrics (desktop)", async () => {
    const page = await open({ width: 1280, height: 800 });
    const shot = join(shots, "home-desktop.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(await page.title()).toBe("tas-sync");
    const good = await rowText(page, GOOD);
    expect(good).toMatch(/^5251 ok run \d+ succeeded, \d+ s ago fresh: last success \d+ s ago every 1h/);
    expect(good).toMatch(/ 0 none open in (59|60) min /);
    const refused = await rowText(page, REFUSED);
    expect(refused).toMatch(/^5252 failing run \d+ failed, \d+ s ago .*401/);
    // Never synced, but the daemon only started: it has its periods to catch up.
    expect(refused).toContain("not yet: never synced");
    expect(await page.locator('a[href="./queues"]').count()).toBe(1);
    expect(await page.locator('a[href="./metrics"]').count()).toBe(1);
    expect(await page.locator("table.outbox").textContent()).toMatch(/created\s*0(?!\d)/);
    // The dashboard it links to answers with the same credentials.
    const board = await page.goto(`${url}/queues`);
    expect(board?.status()).toBe(200);
    await page.context().close();
  });

  it("stacks each company into a card that fits a phone's width", async () => {
    const page = await open({ width: 390, height: 844 });
    const shot = join(shots, "home-phone.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    // Run in the page (a string: this project's types have no DOM).
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    const card = page.locator(`tr[data-company="${REFUSED}"]`);
    const box = await card.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(390);
    expect(await rowText(page, REFUSED)).toMatch(/^5252\s*failing\s*run \d+ failed/);
    // Each cell is labelled on a phone (by CSS), the header row hidden.
    expect(await page.locator("table.companies thead").isVisible()).toBe(false);
    const labels = await card
      .locator("td")
      .evaluateAll((tds) =>
        tds.map((td) => (globalThis as unknown as InPage).getComputedStyle(td, "::before").content),
      );
    expect(labels).toEqual(
      ["Company", "Health", "Last run", "Freshness", "Rejected now", "Schema changes", "Next run"].map(
        (l) => `"${l}"`,
      ),
    );
    await page.context().close();
  });

  it("is refused without the right credentials", async () => {
    const context = await browser.newContext({ httpCredentials: { username: USER, password: "wrong" } });
    const page = await context.newPage();
    const res = await page.goto(`${url}/`);
    expect(res?.status()).toBe(401);
    expect(await page.locator("body").textContent()).not.toContain("5251");
    await context.close();
  });
});
