// The move map of issue 26 items 1 and 2: where each file of the old layout goes.
// A rule whose `from` ends in "/" moves a folder (every tracked file under it, keeping its sub-path);
// otherwise it moves one file. A file rule wins over a folder rule; of two folder rules the longer wins.
// No `to` may start with a `from` (run twice, nothing moves twice).

/** @type {{ from: string, to: string }[]} */
export const MOVES = [
  // 1. One meaning per name: the drizzle tables are "tables"; "schema" is only the service's observed schema.
  { from: "src/schema/", to: "src/tables/" },

  // 2. One home per feature: the observed schema's logic in src/observed/, a stage between the tables and
  // normalize below it and the store above it (the store's adapters import its port and row conversions;
  // the sync pipeline, the commands and the daemon call it). Its dialect statements stay in store/*/schema/.
  { from: "src/schema/observed-types.ts", to: "src/observed/types.ts" },
  { from: "src/store/port-schema.ts", to: "src/observed/port.ts" },
  { from: "src/store/schema-rows.ts", to: "src/observed/rows.ts" },
  { from: "src/observe/", to: "src/observed/" },
  { from: "src/schema-report/observed.ts", to: "src/observed/report.ts" },
  { from: "src/schema-report/", to: "src/observed/" },
  { from: "src/alerts/drift.ts", to: "src/observed/drift.ts" },
];

/**
 * Small exact edits that make the moves clean of stage cycles, applied after the imports are rewritten
 * (each is skipped when its `after` is already there, and reported when neither text is found).
 * @type {{ file: string, before: string, after: string, why: string }[]}
 */
export const EDITS = [
  {
    file: "src/observed/drift.ts",
    before: 'import type { SchemaChangeNote } from "../telemetry.js";',
    after: 'import type { NewSchemaChange as SchemaChangeNote } from "./types.js";',
    why: "telemetry.ts imports observed/types.ts; drift.ts took the same type back through telemetry.ts (a stage cycle)",
  },
];

/**
 * docs/development.md's layout block (```text under "src/"): entries replaced (`lines`) or removed (null).
 * An entry is its first line ("  name/   words") and the deeper-indented lines that continue it.
 */
export const LAYOUT = [
  {
    entry: "schema/",
    lines: [
      "  tables/              drizzle tables and views: sqlite/ and postgres/, the same names in each;",
      "                       outbox-states.ts: the push outbox's states, transitions and what makes a",
      "                       row ready, written once for both stores; descriptions*.ts: the words of",
      "                       the table reference",
    ],
  },
  {
    entry: "observe/",
    lines: [
      "  observed/            the service's observed schema, one home (pure but for its port): a fold of",
      "                       records into entity/path/type counts and values (observation.ts), settled",
      "                       into rows and changes (settle.ts: drift), the contracts (contract.ts:",
      "                       accepted schema, freeze, discard_value), the documented paths, the port",
      "                       (port.ts) and row conversions (rows.ts) the store adapters use, the report",
      "                       for people (report.ts, gaps.ts, markdown.ts, changes.ts) and a run's drift",
      "                       alert (drift.ts); only the dialect statements live in store/*/schema/, the",
      "                       run's observer in sync/observing.ts and the command in commands/schema.ts",
    ],
  },
  { entry: "schema-report/", lines: null },
];

/** Exact text replacements in docs/development.md outside the layout block (skipped when already done). */
export const DOC_EDITS = [
  { before: "port-outbox.ts, port-schema.ts: the interface;", after: "port-outbox.ts: the interface;" },
  { before: "a run's drift alert (pure), the webhook sender", after: "the webhook sender" },
  { before: "**Changing the schema.**", after: "**Changing the tables.**" },
];
