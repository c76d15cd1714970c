/**
 * The operator's home page at `/`: each company's last run, freshness, rejected records, open
 * schema changes and next run; the push outbox and held companies; links to the dashboard and
 * the metrics. One server-rendered page, no script: it refreshes itself, stacks its table into
 * cards on a phone, and escapes every text it shows (errors and reasons come from the service).
 */
import type { Context } from "hono";
import { withDeadline } from "../deadline.js";
import type { HomeCompany, HomeView } from "./home-view.js";

const HOME_REFRESH_SECONDS = 30;

const HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  // No script, no frame, nothing fetched: only the inline style below.
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/** Text for HTML, in an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

/** "3 min", "2 h 5 min", "40 s": how long `ms` is, roughly, for people. */
export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  return `${Math.round(h / 24)} days`;
}

const ago = (iso: string, now: number) => `${span(now - Date.parse(iso))} ago`;

function health(c: HomeCompany): { word: string; cls: string } {
  if (c.failing) return { word: "failing", cls: "bad" };
  if (c.stale) return { word: "stale", cls: "bad" };
  return { word: "ok", cls: "ok" };
}

function lastRunCell(c: HomeCompany, now: number): string {
  const r = c.lastRun;
  if (!r) return "never run";
  const cls = r.status === "succeeded" ? "ok" : r.status === "failed" ? "bad" : "warn";
  const error = r.error && r.status !== "succeeded" ? `<div class="why">${escapeHtml(r.error)}</div>` : "";
  return `run ${r.id} <span class="${cls}">${escapeHtml(r.status)}</span>, ${ago(r.startedAt, now)}${error}`;
}

function freshnessCell(c: HomeCompany, now: number): string {
  const rule = `every ${escapeHtml(c.every)}, stale after ${escapeHtml(c.staleAfter)}`;
  const why = `<div class="why">${rule}</div>`;
  // A company the daemon has not synced yet is given its periods to catch up: not stale, not fresh.
  if (!c.lastSuccessAt)
    return `<span class="${c.stale ? "bad" : "warn"}">${c.stale ? "stale" : "not yet"}</span>: never synced${why}`;
  const word = c.stale ? "stale" : "fresh";
  return `<span class="${c.stale ? "bad" : "ok"}">${word}</span>: last success ${ago(c.lastSuccessAt, now)}${why}`;
}

function nextRunCell(c: HomeCompany, now: number): string {
  if (!c.nextRunAt) return "not scheduled";
  const inMs = Date.parse(c.nextRunAt) - now;
  const when = `<div class="why">${escapeHtml(c.nextRunAt)}</div>`;
  // A scheduler's next run a while in the past: no worker is taking the sync jobs.
  return inMs >= -60_000
    ? `in ${span(Math.max(0, inMs))}${when}`
    : `<span class="bad">overdue by ${span(inMs)}</span>${when}`;
}

function companyRow(c: HomeCompany, now: number): string {
  const h = health(c);
  const cell = (label: string, html: string) => `<td data-label="${label}"><div>${html}</div></td>`;
  return `<tr data-company="${c.companyId}">${[
    cell("Company", `<b>${c.companyId}</b>`),
    cell("Health", `<span class="${h.cls}">${h.word}</span>`),
    cell("Last run", lastRunCell(c, now)),
    cell("Freshness", freshnessCell(c, now)),
    cell("Rejected now", c.rejectedNow === null ? "unknown" : String(c.rejectedNow)),
    cell("Schema changes", c.openChanges ? `<span class="warn">${c.openChanges} open</span>` : "none open"),
    cell("Next run", nextRunCell(c, now)),
  ].join("")}</tr>`;
}

function outboxSection(v: HomeView): string {
  const counts = Object.entries(v.outbox.counts)
    .map(
      ([state, n]) =>
        `<tr><td data-label="State">${escapeHtml(state)}</td><td data-label="Rows">${n}</td></tr>`,
    )
    .join("");
  const held = v.outbox.held.length
    ? `<h3>Held companies</h3><ul>${v.outbox.held
        .map(
          (h) =>
            `<li data-held="${h.companyId}"><b>${h.companyId}</b>: ${h.rows} row(s) held: ${escapeHtml(h.reason)}</li>`,
        )
        .join("")}</ul>`
    : "<p>No company is held.</p>";
  return `<h2>Push outbox</h2><table class="outbox"><thead><tr><th>State</th><th>Rows</th></tr></thead><tbody>${counts}</tbody></table>${held}`;
}

const STYLE = `
body{font:15px/1.4 system-ui,sans-serif;margin:0 auto;padding:12px;max-width:1200px;color:#1b1b1b}
h1{font-size:1.4em;margin:0 0 4px}h2{font-size:1.15em;margin:20px 0 6px}h3{font-size:1em}
nav a{margin-right:14px}.meta{color:#555;font-size:.9em}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #ddd;vertical-align:top}
table.outbox{width:auto}.ok{color:#146c2e;font-weight:600}.bad{color:#b3261e;font-weight:600}.warn{color:#8a5300;font-weight:600}
.why{color:#555;font-size:.85em;overflow-wrap:anywhere}.problems{background:#fff4e5;padding:6px 10px}
@media (max-width:700px){
 table.companies thead{display:none}table.companies tr{display:block;border:1px solid #ccc;border-radius:6px;margin:0 0 10px;padding:4px}
 table.companies td{display:flex;gap:8px;border:0;padding:3px 6px}
 table.companies td::before{content:attr(data-label);flex:0 0 8.5em;color:#555}
}`;

/** The whole page (pure: the view carries its own time). */
export function renderHome(v: HomeView, refreshSeconds = HOME_REFRESH_SECONDS): string {
  const now = Date.parse(v.generatedAt);
  const problems = v.problems.length
    ? `<div class="problems">${v.problems.map((p) => `<div>${escapeHtml(p)}</div>`).join("")}</div>`
    : "";
  const rows = v.companies.map((c) => companyRow(c, now)).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${refreshSeconds}">
<title>tas-sync</title><style>${STYLE}</style></head>
<body><h1>tas-sync</h1>
<nav><a href="./queues">Queues (dashboard)</a><a href="./metrics">Metrics</a><a href="./readyz">Readiness</a></nav>
<p class="meta">As of ${escapeHtml(v.generatedAt)}; this page refreshes every ${refreshSeconds} s.</p>
${problems}
<h2>Companies</h2>
<table class="companies"><thead><tr><th>Company</th><th>Health</th><th>Last run</th><th>Freshness</th><th>Rejected now</th><th>Schema changes</th><th>Next run</th></tr></thead>
<tbody>${rows}</tbody></table>
${outboxSection(v)}
</body></html>`;
}

/** GET /: the page, or a 503 page saying what could not be read. */
export function homeRoute(view: () => Promise<HomeView>, timeoutMs: number) {
  return async (c: Context): Promise<Response> => {
    const o = await withDeadline(Promise.resolve().then(view), timeoutMs);
    if (o.settled && "value" in o) return c.body(renderHome(o.value), 200, HEADERS);
    const why = !o.settled
      ? `the daemon's state did not answer within ${timeoutMs} ms`
      : `the daemon's state could not be read: ${o.error instanceof Error ? o.error.message : String(o.error)}`;
    return c.body(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="${HOME_REFRESH_SECONDS}"><title>tas-sync</title></head><body><h1>tas-sync</h1><p>${escapeHtml(why)}</p><p><a href="./readyz">Readiness</a></p></body></html>`,
      503,
      HEADERS,
    );
  };
}
