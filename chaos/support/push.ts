/**
 * Push helpers of the chaos runner: seed files with parent/child chains, the documented
 * recovery (push --wait again; set-parent-id for children blocked behind a parent that ended
 * `exists` without an id, the id looked up in the simulator's /__admin/scenarios), and the
 * check that the outbox and the service agree: every row once, none missing, none twice.
 */
import { writeFileSync } from "node:fs";
import type { Db } from "./db.js";
import { type AdminScenario, cli, cliWithin, parallel, type Simulator } from "./proc.js";

export interface SeedRow {
  key: string;
  company_id: number;
  project_id: number;
  scenario_name: string;
  source_file: string;
  parent_key?: string;
}

/**
 * `groups` families of five rows: root -> a -> b -> c (a chain four deep: a grandchild and a
 * great-grandchild below a child that may end up blocked) and root -> d.
 */
export function chainRows(tag: string, groups: number, companyId: number, projects: number[]): SeedRow[] {
  const rows: SeedRow[] = [];
  for (let g = 0; g < groups; g++) {
    const project = projects[g % projects.length] as number;
    const row = (name: string, parent?: string): SeedRow => ({
      key: `${tag}-${g}-${name}`,
      company_id: companyId,
      project_id: project,
      scenario_name: `${tag} ${g} ${name}`,
      source_file: `${tag}_${g}_${name}.java`,
      ...(parent ? { parent_key: `${tag}-${g}-${parent}` } : {}),
    });
    rows.push(row("root"), row("a", "root"), row("b", "a"), row("c", "b"), row("d", "root"));
  }
  return rows;
}

export function writeSeed(path: string, rows: SeedRow[]): string {
  writeFileSync(path, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
  return path;
}

export interface SettleResult {
  /** `push --wait` runs needed after the chaos. */
  pushRuns: number;
  /** set-parent-id calls made. */
  recovered: number;
  /** A push --wait that did not end in time (killed). */
  hangs: number;
  problems: string[];
}

interface OutboxRow {
  key: string;
  status: string;
  parent_key: string | null;
  project_id: number;
  scenario_name: string;
  scenario_id: number | null;
}

const outbox = (db: Db) =>
  db.rows<OutboxRow>(
    "SELECT key, status, parent_key, project_id, scenario_name, scenario_id FROM scenario_requests",
  );

/**
 * Runs `push FILE --wait` until every row is settled, applying set-parent-id (with the id
 * the service holds) to the parents of blocked rows in between.
 */
export async function settle(
  sim: Simulator,
  db: Db,
  config: string,
  seed: string,
  opts: { waitMs: number; rounds?: number },
): Promise<SettleResult> {
  const out: SettleResult = { pushRuns: 0, recovered: 0, hangs: 0, problems: [] };
  for (let round = 0; round < (opts.rounds ?? 12); round++) {
    const run = await cliWithin(["push", seed, "--wait", "--config", config], opts.waitMs);
    out.pushRuns++;
    if (run.timedOut) {
      out.hangs++;
      const rows = await outbox(db);
      const open = rows.filter((r) => !["created", "exists", "failed"].includes(r.status));
      out.problems.push(
        `push --wait did not end within ${opts.waitMs / 1000} s (killed); unsettled: ${open.length} (${summarize(open)})`,
      );
    } else if (run.code !== 0 && run.code !== 1) {
      out.problems.push(`push --wait exited ${run.code ?? run.signal}: ${run.stderr.slice(-500)}`);
      return out;
    }
    const rows = await outbox(db);
    const blocked = rows.filter((r) => r.status === "blocked");
    const unsettled = rows.filter((r) => !["created", "exists", "failed", "blocked"].includes(r.status));
    if (blocked.length === 0 && unsettled.length === 0) return out;
    if (blocked.length === 0) continue;
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const sims = await sim.scenarios();
    const simId = new Map(sims.map((s) => [`${s.project_id}/${s.scenario_name}`, s.id]));
    // A blocked row waits for the id of its nearest ancestor that ended `exists` without one
    // (rows below a blocked child are blocked too, behind the same ancestor).
    const waitsFor = (row: OutboxRow): string | null => {
      for (let key = row.parent_key, hops = 0; key !== null && hops < 100; hops++) {
        const parent = byKey.get(key);
        if (!parent) return key;
        if (parent.status === "exists" && parent.scenario_id === null) return key;
        key = parent.parent_key;
      }
      return null;
    };
    const parents = [...new Set(blocked.map(waitsFor).filter((k): k is string => k !== null))];
    await parallel(parents, 4, async (key) => {
      const parent = byKey.get(key);
      const id = parent && simId.get(`${parent.project_id}/${parent.scenario_name}`);
      if (!parent || id === undefined) {
        out.problems.push(`blocked behind ${key}, which the service does not hold`);
        return;
      }
      const res = await cli(["set-parent-id", key, String(id), "--config", config]);
      if (res.code !== 0)
        out.problems.push(`set-parent-id ${key} ${id}: exit ${res.code}: ${res.stderr.trim()}`);
      else out.recovered++;
    });
  }
  out.problems.push("rows still unsettled after every recovery round");
  return out;
}

function summarize(rows: OutboxRow[]): string {
  const by: Record<string, number> = {};
  for (const r of rows) by[r.status] = (by[r.status] ?? 0) + 1;
  return Object.entries(by)
    .map(([s, n]) => `${n} ${s}`)
    .join(", ");
}

export interface Agreement {
  rows: number;
  created: number;
  exists: number;
  failed: number;
  unsettled: number;
  duplicates: number;
  missing: number;
  /** Outbox rows whose id, or whose parent link, is not what the service holds. */
  mismatches: number;
  problems: string[];
}

/** Compares the outbox with what the service holds (only this seed's names). */
export async function agreement(sim: Simulator, db: Db, seed: SeedRow[]): Promise<Agreement> {
  const rows = await outbox(db);
  const names = new Set(seed.map((r) => `${r.project_id}/${r.scenario_name}`));
  const sims: AdminScenario[] = (await sim.scenarios()).filter((s) =>
    names.has(`${s.project_id}/${s.scenario_name}`),
  );
  const byName = new Map<string, AdminScenario[]>();
  for (const s of sims) {
    const k = `${s.project_id}/${s.scenario_name}`;
    byName.set(k, [...(byName.get(k) ?? []), s]);
  }
  const a: Agreement = {
    rows: rows.length,
    created: 0,
    exists: 0,
    failed: 0,
    unsettled: 0,
    duplicates: 0,
    missing: 0,
    mismatches: 0,
    problems: [],
  };
  for (const list of byName.values()) if (list.length > 1) a.duplicates += list.length - 1;
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const simOf = (r: OutboxRow) => byName.get(`${r.project_id}/${r.scenario_name}`)?.[0];
  for (const r of rows) {
    if (r.status === "created") a.created++;
    else if (r.status === "exists") a.exists++;
    else if (r.status === "failed") a.failed++;
    else a.unsettled++;
    const s = simOf(r);
    if (!s) {
      a.missing++;
      continue;
    }
    if (r.scenario_id !== null && Number(r.scenario_id) !== s.id) {
      a.mismatches++;
      if (a.problems.length < 5)
        a.problems.push(`row ${r.key}: outbox id ${r.scenario_id}, service id ${s.id}`);
    }
    const parent = r.parent_key === null ? undefined : byKey.get(r.parent_key);
    const parentSim = parent && simOf(parent);
    if (r.parent_key !== null && (parentSim === undefined || s.parent_id !== parentSim.id)) {
      a.mismatches++;
      if (a.problems.length < 5)
        a.problems.push(`row ${r.key}: service parent ${s.parent_id}, expected ${parentSim?.id ?? "none"}`);
    }
  }
  if (rows.length !== seed.length) a.problems.push(`outbox has ${rows.length} rows, the file ${seed.length}`);
  if (sims.length - a.duplicates !== seed.length)
    a.problems.push(`the service holds ${sims.length - a.duplicates} distinct scenarios of ${seed.length}`);
  if (a.duplicates) a.problems.push(`${a.duplicates} duplicate(s) on the service`);
  if (a.missing) a.problems.push(`${a.missing} row(s) missing on the service`);
  if (a.failed) a.problems.push(`${a.failed} row(s) failed`);
  if (a.unsettled) a.problems.push(`${a.unsettled} row(s) unsettled`);
  return a;
}
