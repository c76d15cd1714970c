/** `tas-sync demo`: the simulator and a full sync end to end, then a few SQL answers. */
import { parseConfig } from "../config/index.js";
import { SIM_CLIENT_ID, SIM_CLIENT_SECRET, startSimulator } from "../simulator/server.js";
import { openStore } from "../store/open.js";
import { runSyncCommand } from "./sync.js";
import { formatTable } from "./table.js";
import { atLeast, type CommandRun } from "./types.js";

const QUERIES: { title: string; sql: string }[] = [
  {
    title: "Live plans per company and platform",
    sql: `SELECT company_id, platform, count(*) AS plans FROM plans WHERE deleted_at IS NULL
          GROUP BY company_id, platform ORDER BY company_id, platform`,
  },
  {
    title: "Plans that run on weekdays (v_plan_schedule)",
    sql: `SELECT plan_id, plan_name, period_type, period_start_at, day_names FROM v_plan_schedule
          WHERE day_names LIKE '%MONDAY%' ORDER BY plan_id LIMIT 5`,
  },
  {
    title: "Report coverage with dangling plan links (v_report_plan_coverage)",
    // FILTER and a full GROUP BY: the same SQL on SQLite and PostgreSQL (dangling is a flag).
    sql: `SELECT report_id, report_name, count(*) AS plans, count(*) FILTER (WHERE dangling) AS dangling
          FROM v_report_plan_coverage GROUP BY report_id, report_name ORDER BY report_id`,
  },
  {
    title: "Mobile apps whose metadata needed the \\' repair or did not parse",
    sql: `SELECT id, operating_system, mobile_app_name, metadata_repaired, metadata_error FROM mobile_apps
          WHERE metadata_repaired OR metadata_error IS NOT NULL`,
  },
];

/** Implementation of `tas-sync demo` (spec in catalog/pull.ts). */
export const runDemo: CommandRun = async (ctx) => {
  const database = typeof ctx.flags.db === "string" ? ctx.flags.db : "./tas-demo.db";
  const plans = atLeast(ctx.flags, "plans", 1) ?? 200;
  const companies = atLeast(ctx.flags, "companies", 1) ?? 2;
  const sim = await startSimulator({ port: 0, plans, companies, reports: 3 });
  try {
    ctx.out(`simulator listening at ${sim.baseUrl}`);
    const cfg = parseConfig(
      {
        baseUrl: sim.baseUrl,
        database,
        companies: sim.companies.map((c) => ({
          id: c.id,
          reportIds: c.reportIds,
          auth: {
            tokenUrl: sim.tokenUrl,
            clientId: SIM_CLIENT_ID,
            clientSecret: SIM_CLIENT_SECRET,
            username: c.username,
            password: c.password,
          },
        })),
      },
      "(demo)",
    );
    const logger = await ctx.logger();
    const code = await runSyncCommand(cfg, { logger, out: ctx.out, signal: ctx.stopSignal });
    if (ctx.stopSignal.aborted) return code;
    const store = await openStore(database, { readonly: true });
    try {
      for (const q of QUERIES) {
        const cursor = await store.sql.query(q.sql);
        const rows: Record<string, unknown>[] = [];
        for await (const values of cursor.rows)
          rows.push(Object.fromEntries(cursor.columns.map((c, i) => [c, values[i]])));
        ctx.out(`\n${q.title}:\n${formatTable(rows)}`);
      }
    } finally {
      await store.close();
    }
    const query = `query --db ${database} "SELECT * FROM v_plan_schedule LIMIT 10"`;
    ctx.out(`\nThe data is in ${database}. Try:\n  tas-sync ${query}`);
    // Run by `npm run demo` in a checkout: tas-sync is on the PATH only after `npm link`.
    if (process.env.npm_lifecycle_event === "demo")
      ctx.out(
        `(in this checkout, npm link puts tas-sync on your PATH; until then: node dist/cli/bin.js ${query})`,
      );
    return code;
  } finally {
    await sim.close();
  }
};
