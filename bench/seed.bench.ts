/**
 * npm run bench:seed — a seed file's memory: peak RSS of validating a 1M-row file (what
 * `push --dry-run` does) in each format, and of a real record (SQLite outbox) and queue (BullMQ
 * on Redis) of a large NDJSON file. Each measurement runs in a child process of its own
 * (./seed-child.ts), beside two baselines measured in the same run: node with the modules loaded
 * and nothing read (idle), and reading the file whole as text (the floor of any reader that holds
 * the file, as the former one did: it peaked at 0.9-1.0 GB on these files). Targets: peak RSS at
 * most 300 MB (issue 23), and for NDJSON and JSON at most 0.7x reading the file whole.
 * BENCH_SEED_ROWS (1,000,000) and BENCH_SEED_RECORD_ROWS (200,000: a 1M-row queue would put
 * about 1 GB of jobs into a shared Redis) change the sizes. Every Redis key is deleted at the end.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deleteKeys } from "./push-support.js";
import { fmt, Report } from "./support.js";

const ROWS = Number(process.env.BENCH_SEED_ROWS ?? 1_000_000);
const RECORD_ROWS = Number(process.env.BENCH_SEED_RECORD_ROWS ?? 200_000);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const LIMIT_MB = 300;
const WHOLE_RATIO = 0.7;
const CHILD = fileURLToPath(new URL("./seed-child.js", import.meta.url));

type Format = "ndjson" | "csv" | "json";
const COLUMNS = [
  "key",
  "company_id",
  "project_id",
  "parent_key",
  "scenario_name",
  "source_file",
  "description",
];

/** Row i: a parent every 100 rows with 3 children under it, in 4 projects. */
function row(i: number): Record<string, unknown> {
  const tree = i - (i % 100);
  const inTree = i % 100;
  const r: Record<string, unknown> = {
    company_id: 5251,
    project_id: 52511 + ((tree / 100) % 4),
    scenario_name: `Seed bench scenario ${i}`,
    source_file: "BenchScenario.java",
    description: 'created by bench:seed, with a comma, and "quotes"',
  };
  if (inTree === 0) r.key = `tree-${tree}`;
  else if (inTree <= 3) r.parent_key = `tree-${tree}`;
  return r;
}

const csvCell = (v: unknown) => {
  const s = v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** Writes `rows` rows in a format, a batch at a time (the bench holds no file either). */
function writeFile(path: string, format: Format, rows: number): void {
  const fd = openSync(path, "w");
  try {
    if (format === "csv") writeSync(fd, `${COLUMNS.join(",")}\n`);
    if (format === "json") writeSync(fd, "[\n");
    for (let start = 0; start < rows; start += 10_000) {
      const lines: string[] = [];
      for (let i = start; i < Math.min(rows, start + 10_000); i++) {
        const r = row(i);
        if (format === "csv") lines.push(COLUMNS.map((c) => csvCell(r[c])).join(","));
        else lines.push(JSON.stringify(r));
      }
      const sep = format === "json" ? ",\n" : "\n";
      const last = start + 10_000 >= rows;
      writeSync(fd, lines.join(sep) + (format === "json" ? (last ? "\n" : ",\n") : "\n"));
    }
    if (format === "json") writeSync(fd, "]\n");
  } finally {
    closeSync(fd);
  }
}

interface ChildResult {
  ms: number;
  rssMb: number;
  valid?: number;
  problems?: number;
  recorded?: number;
  queued?: number;
  checkedMb?: number;
  recordedMb?: number;
}

function child(args: string[]): ChildResult {
  const r = spawnSync(process.execPath, [CHILD, ...args], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`seed-child ${args[0]} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as ChildResult;
}

async function main(): Promise<number> {
  const report = new Report("bench:seed");
  const dir = mkdtempSync(join(tmpdir(), "tas-bench-seed-"));
  const prefix = `tas-bench-${randomUUID()}`;
  try {
    const idle = child(["idle"]);
    report.figure("idle (modules loaded, nothing read)", `${fmt(idle.rssMb)} MB peak RSS`);
    let wholeNdjson = 0;
    for (const format of ["ndjson", "csv", "json"] as const) {
      const path = join(dir, `seed-${ROWS}.${format}`);
      writeFile(path, format, ROWS);
      const mb = statSync(path).size / 1024 / 1024;
      const whole = child(["whole", path]);
      if (format === "ndjson") wholeNdjson = whole.rssMb;
      const check = child(["check", path]);
      console.log("");
      report.figure(`${format}: ${fmt(ROWS)} rows, ${fmt(mb)} MB`, "");
      report.figure("  reading it whole (baseline)", `${fmt(whole.rssMb)} MB peak RSS`);
      report.figure(
        "  dry run (validate, show 20)",
        `${fmt(check.rssMb)} MB peak RSS, ${fmt(check.ms / 1000, 1)} s = ${fmt(ROWS / (check.ms / 1000))} rows/s; ${fmt(check.valid ?? 0)} valid, ${check.problems} problems`,
      );
      report.check(
        `  ${format}: every row valid`,
        check.valid === ROWS && check.problems === 0,
        `${fmt(check.valid ?? 0)} of ${fmt(ROWS)}`,
      );
      report.target(`  ${format}: dry-run peak RSS`, check.rssMb, "at most", LIMIT_MB, (n) => `${fmt(n)} MB`);
      // The CSV file is 40% smaller than the JSON ones while its rows are the same: holding it
      // whole costs less, the reader's table as much. Its ratio is shown, not judged.
      if (format === "csv")
        report.figure("  peak / reading it whole", `${fmt(check.rssMb / whole.rssMb, 2)}x`);
      else
        report.target(
          `  ${format}: peak / reading it whole`,
          check.rssMb / whole.rssMb,
          "at most",
          WHOLE_RATIO,
          (n) => `${fmt(n, 2)}x`,
        );
      rmSync(path, { force: true });
    }

    const path = join(dir, `record-${RECORD_ROWS}.ndjson`);
    writeFile(path, "ndjson", RECORD_ROWS);
    const rec = child(["record", path, join(dir, "outbox.db"), prefix]);
    console.log("");
    report.figure(
      `record + queue: ${fmt(RECORD_ROWS)}-row NDJSON`,
      "SQLite outbox, BullMQ on Redis, no worker",
    );
    report.figure(
      "  validate + record + queue",
      `${fmt(rec.rssMb)} MB peak RSS, ${fmt(rec.ms / 1000, 1)} s = ${fmt(RECORD_ROWS / (rec.ms / 1000))} rows/s; ${fmt(rec.recorded ?? 0)} recorded, ${fmt(rec.queued ?? 0)} queued`,
    );
    report.figure(
      "  peak RSS after each step",
      `checked ${fmt(rec.checkedMb ?? 0)} MB, recorded ${fmt(rec.recordedMb ?? 0)} MB, queued ${fmt(rec.rssMb)} MB`,
    );
    report.check(
      "  every row recorded",
      rec.recorded === RECORD_ROWS,
      `${fmt(rec.recorded ?? 0)} of ${fmt(RECORD_ROWS)}`,
    );
    report.target("  record + queue peak RSS", rec.rssMb, "at most", LIMIT_MB, (n) => `${fmt(n)} MB`);
    report.figure("  against reading the 1M-row NDJSON whole", `${fmt(rec.rssMb / wholeNdjson, 2)}x`);
  } finally {
    await deleteKeys(REDIS_URL, prefix);
    rmSync(dir, { recursive: true, force: true });
  }
  return report.end();
}

process.exitCode = await main();
