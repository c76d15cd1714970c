/**
 * `tas-sync schema` and the schema line of `status`, on every store kind, over observations and
 * changes written the way a sync writes them (a snapshot's schema.write): the table, --json,
 * --changes (--since), --markdown, --ack and --company, and the errors of bad usage. The config
 * names its only secret with "env:" and the variable is unset: the command needs none.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_TYPES, type NewSchemaChange, type ObservedPath } from "../../src/observed/port.js";
import type { Store } from "../../src/store/port.js";
import { emptyCounts } from "../../src/store/port-runs.js";
import type { SnapshotOps } from "../../src/store/port-snapshot.js";
import { testPrefix } from "../support/owner.js";
import { COMPANY, OTHER_COMPANY } from "../support/snapshots.js";
import { storeKinds } from "../support/stores.js";
import { runCli } from "./push-harness.js";

const T1 = "2025-03-01T10:00:00.000Z";
const T2 = "2025-03-02T10:00:00.000Z";
const T3 = "2025-03-03T10:00:00.000Z";
const NO_TYPES = Object.fromEntries(JSON_TYPES.map((t) => [t, 0])) as ObservedPath["types"];

/** A path seen by run `runId` at `at`; `types` counts only what is given. */
function seen(
  runId: number,
  at: string,
  companyId: number,
  entity: string,
  path: string,
  present: number,
  over: Partial<ObservedPath> = {},
): ObservedPath {
  return {
    companyId,
    entity,
    path,
    present,
    types: { ...NO_TYPES, ...over.types },
    minNumber: null,
    maxNumber: null,
    valuesCapped: false,
    values: [],
    firstRunId: runId,
    firstSeenAt: at,
    lastRunId: runId,
    lastSeenAt: at,
    ...over,
  };
}

const str = (n: number) => ({ types: { ...NO_TYPES, string: n } });
const int = (n: number, min: number, max: number) => ({
  types: { ...NO_TYPES, integer: n },
  minNumber: min,
  maxNumber: max,
});

/** Company 5251 as its first run saw it: three plans, one report. */
function firstRun(runId: number): ObservedPath[] {
  const p = (entity: string, path: string, present: number, over: Partial<ObservedPath> = {}) =>
    seen(runId, T1, COMPANY, entity, path, present, over);
  return [
    p("plan", "", 3, { types: { ...NO_TYPES, object: 3 } }),
    p("plan", "screen_shot_type", 3, {
      ...str(3),
      values: [
        { value: "YES", count: 2 },
        { value: "NO", count: 1 },
      ],
    }),
    p("plan", "plan_name", 3, { ...str(3), valuesCapped: true }),
    p("plan", "plan_parallel_test_limit", 3, int(3, 1, 9)),
    p("plan", "scenarios[]", 7, int(7, 10_001, 99_999)),
    p("plan", "description", 3, {
      types: { ...NO_TYPES, string: 2, null: 1 },
      values: [{ value: "", count: 2 }],
    }),
    p("period", "", 3),
    p("period", "period_type", 3, {
      ...str(3),
      values: [
        { value: "MANUAL", count: 2 },
        { value: "ONCE", count: 1 },
      ],
    }),
    p("period", "repeat_period", 3, int(3, 0, 1440)),
    p("plan_alert", "", 2),
    p("plan_alert", "alert_type", 2, { ...str(2), values: [{ value: "EMAIL", count: 2 }] }),
    p("plan_alert", "enabled", 2, { types: { ...NO_TYPES, boolean: 2 } }),
    p("mobile_app_metadata:ANDROID", "", 1),
    p("mobile_app_metadata:ANDROID", "versionCode", 1, int(1, 10_203, 10_203)),
    p("mobile_app_metadata:ANDROID", "packageName", 1, {
      ...str(1),
      values: [{ value: "fr.exemple.applitest", count: 1 }],
    }),
    p("scheduled_report", "", 1),
    p("scheduled_report", "frequency", 1, { ...str(1), values: [{ value: "DAILY", count: 1 }] }),
    p("scheduled_report", "status[]", 1, { ...str(1), values: [{ value: "SUCCESS", count: 1 }] }),
  ];
}

const DRIFT: NewSchemaChange[] = [
  { entity: "plan", path: "labels", kind: "added", before: null, after: "array", exampleId: 11 },
  {
    entity: "plan",
    path: "screen_shot_type",
    kind: "new_value",
    before: null,
    after: "ON_FAILURE_ONLY",
    exampleId: 12,
  },
  {
    entity: "mobile_app_metadata:ANDROID",
    path: "versionCode",
    kind: "type_changed",
    before: "integer",
    after: "string",
    exampleId: 13,
  },
];

describe.each(storeKinds())("tas-sync schema on $name", (kind) => {
  let store: Store;
  let dir: string;
  let config: string;
  const runs: number[] = [];
  const schema = async (...args: string[]) => {
    const run = await runCli(["schema", ...args, "--config", config]);
    return { ...run, text: run.out.join("\n") };
  };
  const json = async <T>(...args: string[]) => {
    const run = await schema(...args, "--json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    return JSON.parse(run.text) as T;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tas-schema-cmd-"));
    const database = await kind.fresh({ migrated: true });
    config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: "http://127.0.0.1:9/Testinium.RestApi",
        auth: { token: "env:SCHEMA_TEST_TOKEN_NEVER_SET" },
        companies: [{ id: COMPANY }, { id: OTHER_COMPANY }],
        database,
        redisUrl: "redis://127.0.0.1:9",
        // REDIS_URL from the environment (CI sets it) replaces the dead URL above: status then
        // looks at live queues, which must be this test's own and no one else's.
        queuePrefix: testPrefix(),
        logLevel: "silent",
      }),
    );
    store = await kind.open(database);
    const write = async (
      at: string,
      companyId: number,
      paths: (runId: number) => ObservedPath[],
      changes: NewSchemaChange[],
    ) => runs.push(await observe(store, at, companyId, paths, changes));
    await write(T1, COMPANY, firstRun, []);
    await write(
      T2,
      COMPANY,
      (runId) => [seen(runId, T2, COMPANY, "plan", "labels", 1, { types: { ...NO_TYPES, array: 1 } })],
      DRIFT,
    );
    await write(
      T3,
      OTHER_COMPANY,
      (runId) => [
        seen(runId, T3, OTHER_COMPANY, "plan", "", 2),
        seen(runId, T3, OTHER_COMPANY, "plan", "screen_shot_type", 2, {
          ...str(2),
          values: [{ value: "NO", count: 2 }],
        }),
      ],
      [
        {
          entity: "plan",
          path: "screen_shot_type",
          kind: "value_gone",
          before: "YES",
          after: null,
          exampleId: null,
        },
      ],
    );
  });
  afterAll(async () => {
    await store?.close();
    await kind.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("prints each entity's paths as a table: types, presence and share, values or (more than N), min and max", async () => {
    const run = await schema("--company", String(COMPANY));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const lines = run.text.split("\n");
    const row = (path: string) => lines.find((l) => l.startsWith(`${path} `))?.split(/\s{2,}/);
    expect(lines[0]).toBe(`plan (company ${COMPANY}): 3`);
    expect(row("screen_shot_type")).toEqual(["screen_shot_type", "string 3", "3 (100%)", "YES 2, NO 1"]);
    // A name is free text: its values are never kept (docs/schema.md), whatever their number.
    expect(row("plan_name")).toEqual(["plan_name", "string 3", "3 (100%)", "(not kept)"]);
    expect(row("plan_parallel_test_limit")).toEqual([
      "plan_parallel_test_limit",
      "integer 3",
      "3 (100%)",
      "1",
      "9",
    ]);
    // A path inside a list counts items: no share of the plans.
    expect(row("scenarios[]")).toEqual(["scenarios[]", "integer 7", "7", "10001", "99999"]);
    expect(row("labels")).toEqual(["labels", "array 1", "1 (33%)"]);
    expect(row("description")).toEqual(["description", "string 2, null 1", "3 (100%)", '"" 2']);
    // Entities in the order of a plan and what it holds, then reports.
    const titles = lines.filter((l) => / \(company \d+\): /.test(l));
    expect(titles).toEqual([
      `plan (company ${COMPANY}): 3`,
      `period (company ${COMPANY}): 3`,
      `plan_alert (company ${COMPANY}): 2`,
      `mobile_app_metadata:ANDROID (company ${COMPANY}): 1`,
      `scheduled_report (company ${COMPANY}): 1`,
    ]);
    expect(run.text).not.toContain(String(OTHER_COMPANY));
  });

  it("--json prints one object per path with its types, presence and values (null when capped)", async () => {
    const all = await json<Record<string, unknown>[]>();
    expect(all.filter((p) => p.path === "")).toEqual([]);
    expect(new Set(all.map((p) => p.company_id))).toEqual(new Set([COMPANY, OTHER_COMPANY]));
    const mine = await json<Record<string, unknown>[]>("--company", String(COMPANY));
    expect(mine).toHaveLength(all.length - 1);
    const [first] = runs;
    expect(mine.find((p) => p.path === "screen_shot_type")).toEqual({
      company_id: COMPANY,
      entity: "plan",
      path: "screen_shot_type",
      types: { string: 3 },
      present: 3,
      entity_count: 3,
      share: 1,
      values: [
        { value: "YES", count: 2 },
        { value: "NO", count: 1 },
      ],
      values_capped: false,
      min: null,
      max: null,
      first_run_id: first,
      first_seen_at: T1,
      last_run_id: first,
      last_seen_at: T1,
    });
    expect(mine.find((p) => p.path === "plan_name")).toMatchObject({ values: null, values_capped: true });
    expect(mine.find((p) => p.path === "labels")).toMatchObject({
      share: 0.3333,
      types: { array: 1 },
      values: [],
    });
    expect(mine.find((p) => p.path === "repeat_period")).toMatchObject({
      entity: "period",
      min: 0,
      max: 1440,
    });
  });

  it("--changes --json prints the change log, oldest first; --since takes a run id or a date; --company filters", async () => {
    const [, second, third] = runs;
    const changes = await json<Record<string, unknown>[]>("--changes");
    expect(
      changes.map((c) => [c.company_id, c.run_id, c.entity, c.path, c.kind, c.before, c.after, c.example_id]),
    ).toEqual([
      [COMPANY, second, "plan", "labels", "added", null, "array", 11],
      [COMPANY, second, "plan", "screen_shot_type", "new_value", null, "ON_FAILURE_ONLY", 12],
      [
        COMPANY,
        second,
        "mobile_app_metadata:ANDROID",
        "versionCode",
        "type_changed",
        "integer",
        "string",
        13,
      ],
      [OTHER_COMPANY, third, "plan", "screen_shot_type", "value_gone", "YES", null, null],
    ]);
    expect(changes[0]).toEqual({
      id: expect.any(Number),
      company_id: COMPANY,
      run_id: second,
      detected_at: T2,
      entity: "plan",
      path: "labels",
      kind: "added",
      before: null,
      after: "array",
      example_id: 11,
      refused: null,
      acknowledged_at: null,
    });
    const ids = (list: Record<string, unknown>[]) => list.map((c) => c.id);
    expect(ids(await json("--changes", "--since", String(third)))).toEqual(ids(changes.slice(3)));
    expect(ids(await json("--changes", "--since", "2025-03-02"))).toEqual(ids(changes.slice(0)));
    expect(ids(await json("--changes", "--since", "2025-03-02T10:00:00.001Z"))).toEqual(
      ids(changes.slice(3)),
    );
    expect(ids(await json("--changes", "--since", "2025-03-04"))).toEqual([]);
    expect(ids(await json("--changes", "--company", String(OTHER_COMPANY)))).toEqual(ids(changes.slice(3)));

    const table = await schema("--changes", "--company", String(COMPANY));
    expect(table.code).toBe(0);
    expect(table.out[0]).toMatch(
      /^id +company +run +detected_at +entity +path +kind +before +after +example +refused +acknowledged$/,
    );
    expect(table.out.slice(2).map((l) => l.split(/\s{2,}/).slice(4))).toEqual([
      ["plan", "labels", "added", "array", "11", "open"],
      ["plan", "screen_shot_type", "new_value", "ON_FAILURE_ONLY", "12", "open"],
      ["mobile_app_metadata:ANDROID", "versionCode", "type_changed", "integer", "string", "13", "open"],
    ]);
  });

  it("--markdown writes the API as observed: the contract's gaps answered, one section per entity", async () => {
    const file = join(dir, "api.md");
    const run = await schema("--markdown", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toEqual([`wrote ${file}: 5 entities, 14 paths`]);
    const page = readFileSync(file, "utf8");
    const gap = (question: string) =>
      page
        .split("\n")
        .find((l) => l.startsWith(`| ${question} |`))
        ?.split(" | ")
        .at(-1)
        ?.replace(/ \|$/, "");
    // Both companies' plans together: 2 + 1 + 2 screenshots said NO.
    expect(gap("`screen_shot_type` values beyond YES and NO")).toBe("`NO` 3, `YES` 2");
    expect(gap("`period_type` values beyond MANUAL")).toBe("`MANUAL` 2, `ONCE` 1");
    expect(gap("Report `frequency` values beyond DAILY")).toBe("`DAILY` 1");
    expect(gap("Report `status` values beyond SUCCESS")).toBe("`SUCCESS` 1");
    expect(gap("`alert_type` values beyond EMAIL")).toBe("plan alerts: `EMAIL` 2");
    expect(gap("`alert_sending_status` values beyond EVERY_TEST")).toBe("not observed yet");
    expect(gap("Scenario `type` values beyond SELENIUM and APITest")).toBe(
      "not observed yet (tas-sync reads no scenario: it only creates them)",
    );
    expect(gap("Fields of a plan alert item")).toBe("`alert_type` string, `enabled` boolean");
    expect(gap("Numeric bounds of the fields")).toBe(
      "`plan_parallel_test_limit` 1 to 9, `repeat_period` 0 to 1440",
    );
    expect(gap("Keys of `mobile_app_metadata` per platform")).toBe(
      "ANDROID: `packageName` string, `versionCode` integer",
    );
    const sections = page.split("\n").filter((l) => l.startsWith("## "));
    expect(sections).toEqual([
      "## What the contract leaves open",
      "## plan",
      "## period",
      "## plan_alert",
      "## mobile_app_metadata:ANDROID",
      "## scheduled_report",
    ]);
    expect(page).toContain("| `plan_name` | string 3 | 3 (60%) | (not kept) |  |  |");

    // One company: its own counts only; to stdout without FILE.
    const other = await schema("--markdown", "--company", String(OTHER_COMPANY));
    expect(other.code).toBe(0);
    expect(other.text).toContain(`for company ${OTHER_COMPANY}.`);
    expect(other.text).toContain("| `screen_shot_type` values beyond YES and NO | 2.4 | `NO` 2 |");
    expect(other.text).not.toContain("## period");
  });

  it("--ack acknowledges one change or all (of a company); status counts the open ones", async () => {
    const open = async () => {
      const run = await runCli(["status", "--json", "--config", config]);
      expect(run.stderr).toBe("");
      const report = JSON.parse(run.out.join("\n")) as {
        companies: { company_id: number; open_schema_changes: number }[];
      };
      return report.companies.map((c) => [c.company_id, c.open_schema_changes]);
    };
    expect(await open()).toEqual([
      [COMPANY, 3],
      [OTHER_COMPANY, 1],
    ]);
    const text = await runCli(["status", "--config", config]);
    expect(text.out).toContain(
      `  company ${COMPANY}: 3 schema change(s) not acknowledged: tas-sync schema --changes --company ${COMPANY}`,
    );

    const changes =
      await json<{ id: number; company_id: number; acknowledged_at: string | null }[]>("--changes");
    const [labels, , , gone] = changes;
    if (!labels || !gone) throw new Error("four changes expected");
    const one = await schema("--ack", String(labels.id));
    expect(one.code).toBe(0);
    expect(one.out).toEqual([
      `acknowledged change ${labels.id} (plan labels added, company ${COMPANY}, run ${runs[1]})`,
    ]);
    const again = await schema("--ack", String(labels.id));
    expect(again.out[0]).toMatch(
      new RegExp(`^change ${labels.id} \\(plan labels added\\) was acknowledged already, at 20`),
    );
    expect(await open()).toEqual([
      [COMPANY, 2],
      [OTHER_COMPANY, 1],
    ]);
    // Another company's change is not one of this company's.
    const wrong = await schema("--ack", String(gone.id), "--company", String(COMPANY));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      `tas-sync schema: no schema change ${gone.id} of company ${COMPANY} (see tas-sync schema --changes)\n`,
    );
    const all = await schema("--ack", "all", "--company", String(COMPANY));
    expect(all.out).toEqual([`acknowledged 2 open change(s) of company ${COMPANY}`]);
    expect(await open()).toEqual([
      [COMPANY, 0],
      [OTHER_COMPANY, 1],
    ]);
    const after = await json<{ id: number; acknowledged_at: string | null }[]>("--changes");
    expect(after.map((c) => c.acknowledged_at === null)).toEqual([false, false, false, true]);
    expect(await json("--changes", "--since", String(runs[2]))).toHaveLength(1);
  });

  it.each([
    [
      ["--changes", "--since", "yesterday"],
      'tas-sync schema: --since expects a date (2025-03-01, or an ISO 8601 time with its zone) or a run id, got "yesterday"',
    ],
    [
      ["--changes", "--since", "2025-02-30"],
      'tas-sync schema: --since expects a date (2025-03-01, or an ISO 8601 time with its zone) or a run id, got "2025-02-30"',
    ],
    [
      ["--changes", "--since", "2025-03-01T10:00"],
      'tas-sync schema: --since expects a date (2025-03-01, or an ISO 8601 time with its zone) or a run id, got "2025-03-01T10:00"',
    ],
    [["--since", "3"], "tas-sync schema: --since goes with --changes"],
    [["--ack", "999999"], "tas-sync schema: no schema change 999999 (see tas-sync schema --changes)"],
    [
      ["--ack", "some"],
      'tas-sync schema: --ack expects a change id (see tas-sync schema --changes) or "all", got "some"',
    ],
    [["--markdown", "--json"], "tas-sync schema: --json does not go with --markdown"],
    [["--changes", "--markdown"], "tas-sync schema: --changes and --markdown do not go together"],
    [["api.md"], 'tas-sync schema: unexpected argument "api.md" (only --markdown takes a FILE)'],
    [
      ["--company", "1"],
      `tas-sync schema: company 1 is not in the config (configured: ${COMPANY}, ${OTHER_COMPANY})`,
    ],
    [
      ["--markdown", "/nonexistent-dir/api.md"],
      "tas-sync schema: cannot write /nonexistent-dir/api.md: ENOENT",
    ],
  ])("refuses %j with one line and exit 2", async (args, message) => {
    const run = await schema(...args);
    expect(run.code).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(run.stderr.startsWith(message)).toBe(true);
  });
});

/** A run of `companyId` at `at` whose snapshot writes these observations and changes (as a sync's does). */
async function observe(
  store: Store,
  at: string,
  companyId: number,
  paths: (runId: number) => ObservedPath[],
  changes: NewSchemaChange[],
): Promise<number> {
  const runId = await store.runs.start({
    companyId,
    trigger: "test",
    startedAt: at,
    owner: { host: "h", pid: 1 },
  });
  const { generation } = await store.snapshots.index(companyId, []);
  await store.snapshots.apply(
    { companyId, runId, startedAt: at, generation, finishedAt: () => at },
    (function* (): SnapshotOps {
      yield { op: "schema.write", write: { paths: paths(runId), changes } };
      return {
        run: { status: "succeeded", counts: emptyCounts(), error: null },
        plansListed: true,
        plansSeen: true,
        rejections: true,
      };
    })(),
  );
  return runId;
}
