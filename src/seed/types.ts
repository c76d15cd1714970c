/** Public shapes of the seed-file reader, and the internal record passed between its stages. */
import type { CreateScenarioBody } from "../wire/schemas.js";

export type SeedFormat = "ndjson" | "json" | "csv";

/** One valid row, ready to be queued. */
export interface SeedRow {
  /** The row's idempotency key: its `key`, or `<project_id>/<scenario_name>`. */
  key: string;
  line: number;
  companyId: number;
  projectId: number;
  scenarioName: string;
  /** Wire names only (aliases mapped); no key/company_id/parent_key. An inline parent stays in body.parent. */
  body: CreateScenarioBody;
  /** Key of the row whose created scenario becomes this row's parent. */
  parentKey: string | null;
}

export interface SeedProblem {
  line: number;
  key: string | null;
  /** The field as written in the file (an alias stays an alias); null for a whole-row problem. */
  field: string | null;
  reason: string;
}

/**
 * Something the reader ignored that may be a mistake: an unknown field or column, reported once
 * per name (not per row), e.g. `descripton: unknown field (did you mean "description"?)`.
 */
export interface SeedWarning {
  /** The first line that has it (1, the header row, for a CSV column). */
  line: number;
  field: string;
  reason: string;
  /** Rows that have it (0 for a CSV column: every row has it). */
  rows: number;
}

export interface SeedParseResult {
  format: SeedFormat;
  /** Rows read (blank lines excluded); 0 when the file as a whole is unreadable. */
  total: number;
  /** Parents always before their children, otherwise file order. */
  valid: SeedRow[];
  /** Sorted by line; a row may have several. */
  invalid: SeedProblem[];
  /** Unknown fields, once each (empty with `strict`: they are problems then). */
  warnings: SeedWarning[];
}

export interface SeedOptions {
  /** Set when the config has exactly one company: rows may then omit company_id. */
  defaultCompanyId?: number;
  /** Unknown fields are problems of their rows (CSV: of the header row) instead of warnings. */
  strict?: boolean;
  /** The companies of the config: a valid row of another company is refused. */
  companies?: ReadonlySet<number>;
}

/** A problem before the row's line and key are attached. */
export interface FieldProblem {
  field: string | null;
  reason: string;
}

/** What a format reader hands on: one record per row, fields still untyped. */
export interface RawRecord {
  line: number;
  /** null when the row could not be read at all (encoding, syntax); `problems` says why. */
  fields: Record<string, unknown> | null;
  problems: FieldProblem[];
}

/** What a format reader says besides its records (it stops after a file problem). */
export interface ReaderOutcome {
  /** CSV: the header's column names and line (unknown columns are checked once, there). */
  header?: { names: string[]; line: number };
  /** One problem that makes the whole file unreadable. */
  fileProblem: (FieldProblem & { line: number }) | null;
}
