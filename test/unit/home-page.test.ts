/** The operator's home page (pure rendering): what each company's row says, escaping, a phone's viewport. */
import { describe, expect, it } from "vitest";
import { escapeHtml, renderHome, span } from "../../src/server/home.js";
import type { HomeCompany, HomeView } from "../../src/server/home-view.js";

const NOW = "2026-11-27T12:00:00.000Z";
const minutesAgo = (m: number) => new Date(Date.parse(NOW) - m * 60_000).toISOString();

function company(over: Partial<HomeCompany> = {}): HomeCompany {
  return {
    companyId: 5251,
    every: "15m",
    staleAfter: "45m",
    lastRun: { id: 7, status: "succeeded", startedAt: minutesAgo(3), finishedAt: minutesAgo(3), error: null },
    lastSuccessAt: minutesAgo(3),
    stale: false,
    failing: false,
    rejectedNow: 2,
    openChanges: 0,
    nextRunAt: new Date(Date.parse(NOW) + 12 * 60_000).toISOString(),
    ...over,
  };
}

function view(companies: HomeCompany[], over: Partial<HomeView> = {}): HomeView {
  return {
    generatedAt: NOW,
    companies,
    outbox: { counts: { pending: 0, queued: 1, created: 20, failed: 3, held: 4 }, held: [] },
    problems: [],
    ...over,
  };
}

/** The text of the row of one company (tags stripped). */
function rowText(html: string, id: number): string {
  const row = new RegExp(`<tr data-company="${id}">([\\s\\S]*?)</tr>`).exec(html)?.[1];
  if (row === undefined) throw new Error(`no row for company ${id}`);
  return row
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

describe("the home page", () => {
  it("shows each company's last run, freshness, rejected records, open changes and next run", () => {
    const html = renderHome(
      view([
        company(),
        company({
          companyId: 5252,
          lastRun: {
            id: 8,
            status: "failed",
            startedAt: minutesAgo(120),
            finishedAt: minutesAgo(120),
            error: "token: HTTP 401",
          },
          lastSuccessAt: minutesAgo(600),
          stale: true,
          failing: true,
          rejectedNow: null,
          openChanges: 3,
          nextRunAt: minutesAgo(30),
        }),
      ]),
    );
    expect(rowText(html, 5251)).toBe(
      "5251 ok run 7 succeeded , 3 min ago fresh : last success 3 min ago every 15m, stale after 45m 2 none open in 12 min 2026-11-27T12:12:00.000Z",
    );
    const failing = rowText(html, 5252);
    expect(failing).toContain("failing run 8 failed , 2 h ago token: HTTP 401");
    expect(failing).toContain("stale : last success 10 h ago");
    expect(failing).toContain("unknown 3 open");
    expect(failing).toContain("overdue by 30 min");
  });

  it("says a company never ran and is not scheduled", () => {
    const html = renderHome(
      view([company({ lastRun: null, lastSuccessAt: null, stale: true, rejectedNow: 0, nextRunAt: null })]),
    );
    expect(rowText(html, 5251)).toContain("never run stale : never synced");
    expect(rowText(html, 5251)).toContain("not scheduled");
  });

  it("escapes every text that comes from outside: errors, held reasons, problems", () => {
    const evil = `<script>alert("x")</script><img src=x onerror='y'>&`;
    const html = renderHome(
      view(
        [
          company({
            failing: true,
            lastRun: { id: 1, status: "failed", startedAt: NOW, finishedAt: NOW, error: evil },
          }),
        ],
        {
          outbox: { counts: { held: 1 }, held: [{ companyId: 5251, rows: 1, reason: evil }] },
          problems: [evil],
        },
      ),
    );
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html.split(escapeHtml(evil)).length - 1).toBe(3);
    expect(escapeHtml(evil)).toBe(
      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;",
    );
  });

  it("lists the outbox by state and the held companies, and links the dashboard and metrics", () => {
    const html = renderHome(
      view([company()], {
        outbox: {
          counts: { pending: 0, created: 20, held: 4 },
          held: [{ companyId: 5252, rows: 4, reason: "credentials refused" }],
        },
      }),
    );
    expect(html).toContain('<td data-label="State">created</td><td data-label="Rows">20</td>');
    expect(html).toContain('<li data-held="5252"><b>5252</b>: 4 row(s) held: credentials refused</li>');
    expect(html).toContain('href="./queues"');
    expect(html).toContain('href="./metrics"');
    expect(renderHome(view([company()]))).toContain("No company is held.");
  });

  it("refreshes itself and fits a phone's width", () => {
    const html = renderHome(view([company()]), 15);
    expect(html).toContain('<meta http-equiv="refresh" content="15">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).toMatch(/@media \(max-width:700px\)/);
  });

  it.for([
    [0, "0 s"],
    [89_000, "89 s"],
    [3 * 60_000, "3 min"],
    [125 * 60_000, "2 h 5 min"],
    [120 * 60_000, "2 h"],
    [72 * 3_600_000, "3 days"],
    [-45_000, "45 s"],
  ] as const)("spans %i ms as %s", ([ms, text]) => {
    expect(span(ms)).toBe(text);
  });
});
