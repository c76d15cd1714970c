/**
 * The baseline of bench:sync: the same rows a full sync writes (plans, child tables,
 * mobile apps, versions), as value arrays built in advance, inserted by a plain loop of
 * better-sqlite3 prepared statements in one transaction. No validation, no hashing.
 */
import { getTableColumns } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { NormalizedPlan } from "../src/normalize/index.js";
import * as t from "../src/schema/sqlite/index.js";
import type { Sqlite } from "../src/store/sqlite/index.js";

type Values = (string | number | null)[];

function toValues(table: SQLiteTable, row: Record<string, unknown>): Values {
  return Object.keys(getTableColumns(table)).map((key) => {
    const v = row[key];
    if (v === undefined || v === null) return null;
    return typeof v === "boolean" ? (v ? 1 : 0) : (v as string | number);
  });
}

function insertSql(table: SQLiteTable): string {
  const cols = Object.values(getTableColumns(table)).map((c) => `"${c.name}"`);
  return `INSERT OR REPLACE INTO "${getTableConfig(table).name}" (${cols.join(",")}) VALUES (${cols.map(() => "?").join(",")})`;
}

export interface BaselineInput {
  text: string;
  hash: string;
  normalized: NormalizedPlan;
}

/** Builds (untimed) the list of [table index, values] operations. */
export function baselineOps(
  rows: BaselineInput[],
  now: string,
): { tables: SQLiteTable[]; ops: [number, Values][] } {
  const tables: SQLiteTable[] = [
    t.plans,
    t.planDaysOfWeek,
    t.planResolutions,
    t.planEnvironments,
    t.planScenarios,
    t.planAlerts,
    t.planFetchAppFiles,
    t.mobileApps,
    t.planMobileApps,
    t.planVersions,
  ];
  const ops: [number, Values][] = [];
  let version = 0;
  for (const { text, hash, normalized: n } of rows) {
    ops.push([
      0,
      toValues(t.plans, { ...n.plan, rawJson: text, contentHash: hash, firstSeenAt: now, lastSeenAt: now }),
    ]);
    const groups = [
      n.days,
      n.resolutions,
      n.environments,
      n.scenarios,
      n.alerts,
      n.fetchAppFiles,
      n.mobileApps,
      n.planMobileApps,
    ];
    groups.forEach((group, i) => {
      for (const r of group)
        ops.push([i + 1, toValues(tables[i + 1] as SQLiteTable, r as Record<string, unknown>)]);
    });
    ops.push([
      9,
      toValues(t.planVersions, {
        versionId: ++version,
        id: n.plan.id,
        contentHash: hash,
        validFrom: now,
        rawJson: text,
        runId: 1,
      }),
    ]);
  }
  return { tables, ops };
}

/** The timed part: prepared statements, one transaction. Returns ms. */
export function runBaseline(sqlite: Sqlite, tables: SQLiteTable[], ops: [number, Values][]): number {
  const stmts = tables.map((table) => sqlite.prepare(insertSql(table)));
  const t0 = performance.now();
  sqlite.exec("BEGIN");
  for (const [i, values] of ops) (stmts[i] as ReturnType<Sqlite["prepare"]>).run(values);
  sqlite.exec("COMMIT");
  return performance.now() - t0;
}
