/**
 * bench:sync's dirty phase: the list keeps three elements that are rejected on every sync (no
 * usable id, invalid, 1 MB), as a real service may for weeks. The no-change re-sync must still
 * cost about the download and write about nothing (issue 22, item 1).
 */
import { join } from "node:path";
import { request } from "undici";
import { BenchDatabases, bestInTurn, fmt, MB, type Report } from "../support.js";
import type { ChildResult } from "./child.js";
import { all, kb, mb, ms, type Runs, type Sim, x } from "./common.js";
import { runChild } from "./run-child.js";

export async function dirtyPhase(
  sim: Sim,
  dir: string,
  store: "sqlite" | "postgres",
  rounds: number,
  report: Report,
): Promise<void> {
  console.log("");
  console.log("Dirty list: three elements rejected on every sync (no usable id, invalid, 1 MB)");
  const put = async (id: number, body: unknown) => {
    const res = await request(`${sim.baseUrl}/__admin/companies/${sim.companyId}/plans/${id}`, {
      method: "PUT",
      body: JSON.stringify(body),
    });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`the simulator refused bad element ${id}: ${res.statusCode}`);
  };
  await put(990_001, "just a string");
  await put(990_002, { id: 990_002, company_id: sim.companyId, enabled: "yes" });
  await put(990_003, {
    id: 990_003,
    company_id: sim.companyId,
    plan_name: "x".repeat(1024 * 1024),
    scenarios: 7,
  });
  let n = 0;
  const fresh = () => join(dir, `dirty-${n++}.sqlite`);
  const dbs = new BenchDatabases();
  try {
    const [download, sqlite, postgres] = (await bestInTurn(
      rounds,
      [
        () => runChild({ mode: "download", ...sim }),
        () => runChild({ mode: "sync", ...sim, database: fresh(), dirty: true }),
        ...(store === "postgres"
          ? [async () => runChild({ mode: "sync", ...sim, database: await dbs.create(), dirty: true })]
          : []),
      ],
      (r) => r.resyncMs ?? r.ms,
    )) as [Runs, Runs, Runs | undefined];
    const r = sqlite.best;
    const worst = (pick: (r: ChildResult) => number) => Math.max(...sqlite.all.map(pick));
    report.figure(
      "download + JSON.parse (dirty list)",
      `${ms(download.best.ms)} ${all(download.all, (r) => r.ms)}`,
    );
    report.figure(
      "dirty no-change re-sync, SQLite",
      `${ms(r.resyncMs ?? 0)} ${all(sqlite.all, (r) => r.resyncMs)}, ${fmt(r.resyncUnchanged ?? 0)} unchanged`,
    );
    report.figure(
      "  write lock held",
      `${ms(r.resyncWriteMs ?? 0)} ${all(sqlite.all, (r) => r.resyncWriteMs)}`,
    );
    report.figure(
      "  bytes written (storage)",
      `${kb(worst((r) => r.resyncWriteBytes ?? 0))} (all write() calls: ${kb(worst((r) => r.resyncWchar ?? 0))})`,
    );
    if (postgres) {
      report.figure(
        "dirty no-change re-sync, PostgreSQL",
        `${ms(postgres.best.resyncMs ?? 0)} ${all(postgres.all, (r) => r.resyncMs)}`,
      );
    }
    console.log("");
    report.target(
      "dirty no-change re-sync / download + JSON.parse",
      (r.resyncMs ?? 0) / download.best.ms,
      "at most",
      1,
      x,
    );
    report.target(
      "bytes written by a dirty no-change re-sync",
      worst((r) => r.resyncWriteBytes ?? 0),
      "at most",
      5 * MB,
      mb,
    );
    if (postgres) {
      const written = Math.max(...postgres.all.map((r) => r.resyncPlanRowsWritten ?? -1));
      report.check(
        "plan rows a dirty no-change re-sync writes (PostgreSQL)",
        written === 0,
        `${fmt(written)} (xmin moved)`,
      );
    }
  } finally {
    await dbs.dropAll();
  }
}
