/**
 * Reading and validating a seed file in bounded memory, in two passes over its bytes: the first
 * checks every row and keeps only what the checks between rows need (RowTable); the second
 * reads the file again and hands on the valid rows one at a time. Pure: chunks of bytes in.
 */
import { readCsv } from "./csv.js";
import { bytePieces, pieces, SeedDecoder } from "./decode.js";
import { resolveRows } from "./graph.js";
import { readJsonArray } from "./json-array.js";
import { readNdjson } from "./ndjson.js";
import { type Candidate, toCandidate } from "./row.js";
import { RowTable } from "./table.js";
import type {
  RawRecord,
  ReaderOutcome,
  SeedFormat,
  SeedOptions,
  SeedParseResult,
  SeedProblem,
  SeedRow,
  SeedWarning,
} from "./types.js";
import { UnknownFields, unknownColumns } from "./unknown.js";

/** The file's bytes, from the start, each time it is called (it is read twice). */
export type ChunkSource = () => Iterable<Uint8Array>;

/** What the first pass found: everything but the valid rows themselves. */
export interface SeedCheck {
  format: SeedFormat;
  /** Rows read (blank lines excluded); 0 when the file as a whole is unreadable. */
  total: number;
  /** Sorted by line; a row may have several. */
  invalid: SeedProblem[];
  /** Unknown fields, once each (empty with `strict`: they are problems then). */
  warnings: SeedWarning[];
  /** Indexes (in the file's rows) of the valid rows, parents before children, otherwise file order. */
  order: Int32Array;
  /** Valid rows per company and project, in the order of `order`. */
  projects: { companyId: number; projectId: number; rows: number }[];
}

/** One record's candidate row; should a check ever throw, that row alone is reported, not the file. */
function candidate(record: RawRecord, opts: SeedOptions): Candidate {
  try {
    return toCandidate(record, opts);
  } catch (err) {
    const reason = `could not read the row: ${err instanceof Error ? err.message : String(err)}`;
    return toCandidate({ line: record.line, fields: null, problems: [{ field: null, reason }] }, opts);
  }
}

function* records(source: ChunkSource, format: SeedFormat, out: ReaderOutcome): Generator<RawRecord> {
  const decoder = new SeedDecoder();
  // The JSON reader scans bytes, as the plan list is scanned, and csv-parse takes bytes; NDJSON
  // reads text.
  if (format === "ndjson") yield* readNdjson(pieces(source(), decoder), decoder, out);
  else if (format === "csv") yield* readCsv(bytePieces(source(), decoder), decoder, out);
  else yield* readJsonArray(bytePieces(source(), decoder), decoder, out);
}

/** The first pass: every problem and warning, and which rows are valid, holding no row. */
export function checkSeed(source: ChunkSource, format: SeedFormat, opts: SeedOptions): SeedCheck {
  const out: ReaderOutcome = { fileProblem: null };
  const table = new RowTable();
  const unknown = new UnknownFields(opts.strict === true);
  let strictColumns: SeedWarning[] | null = null;
  let total = 0;
  for (const record of records(source, format, out)) {
    total++;
    if (strictColumns !== null) continue; // only counted: the header is wrong, so is every row
    if (out.header !== undefined && total === 1 && opts.strict) {
      const columns = unknownColumns(out.header.names, out.header.line);
      if (columns.length > 0) {
        strictColumns = columns;
        continue;
      }
    }
    if (out.header === undefined) unknown.add(record);
    table.add(candidate(record, opts));
  }
  const none = { order: new Int32Array(0), projects: [] };
  if (out.fileProblem !== null)
    return { format, total: 0, invalid: [{ ...out.fileProblem, key: null }], warnings: [], ...none };
  if (out.header !== undefined) {
    const columns = strictColumns ?? unknownColumns(out.header.names, out.header.line);
    // A strict CSV with an unknown column: the header is wrong, so is every row under it.
    if (opts.strict && columns.length > 0) {
      const invalid = columns.map(({ line, field, reason }) => ({ line, key: null, field, reason }));
      return { format, total, invalid, warnings: [], ...none };
    }
    return finish(source, format, opts, total, table, columns);
  }
  return finish(source, format, opts, total, table, unknown.warnings());
}

function finish(
  source: ChunkSource,
  format: SeedFormat,
  opts: SeedOptions,
  total: number,
  table: RowTable,
  warnings: SeedWarning[],
): SeedCheck {
  const order = resolveRows(table);
  const needs = table.needs();
  if (needs.size > 0) {
    // The strings the problems quote, read again: only rows with a problem (or in a cycle).
    let index = 0;
    for (const record of records(source, format, { fileProblem: null })) {
      const i = index++;
      if (!needs.has(i)) continue;
      const r = candidate(record, opts);
      table.fill(i, r.key, r.parentKey);
    }
  }
  // Row indexes are in file order, so problems come out sorted by line.
  const invalid: SeedProblem[] = [];
  for (const i of [...table.problems.keys()].sort((a, b) => a - b))
    for (const p of table.words(i))
      invalid.push({
        line: table.lines[i]!,
        key: table.keyOf.get(i) ?? null,
        field: p.field,
        reason: p.reason,
      });
  const projects = new Map<string, { companyId: number; projectId: number; rows: number }>();
  for (const i of order) {
    const companyId = table.companies[i]!;
    const projectId = table.projects[i]!;
    const k = `${companyId}/${projectId}`;
    const seen = projects.get(k);
    if (seen) seen.rows++;
    else projects.set(k, { companyId, projectId, rows: 1 });
  }
  return { format, total, invalid, warnings, order, projects: [...projects.values()] };
}

/**
 * The second pass: the valid rows (those of `check.order`), read again, in file order, each
 * with its index among the file's rows.
 */
export function* validRows(
  source: ChunkSource,
  format: SeedFormat,
  opts: SeedOptions,
  check: SeedCheck,
): Generator<SeedRow & { index: number }> {
  if (check.order.length === 0) return;
  const wanted = new Uint8Array(check.total);
  for (const i of check.order) wanted[i] = 1;
  const out: ReaderOutcome = { fileProblem: null };
  let index = 0;
  for (const record of records(source, format, out)) {
    const i = index++;
    if (wanted[i] !== 1) continue;
    const r = candidate(record, opts);
    // A valid row has all of these; a file changed between the passes may not.
    if (r.key === null || r.companyId === null || r.body === null || r.problems.length > 0)
      throw new Error(`seed row ${r.line} changed while it was read`);
    yield {
      index: i,
      key: r.key,
      line: r.line,
      companyId: r.companyId,
      projectId: r.body.project_id,
      scenarioName: r.body.scenario_name,
      body: r.body,
      parentKey: r.parentKey,
    };
  }
}

/**
 * Reads and validates a whole seed file held in memory. Pure: bytes in, rows and problems out.
 * Nothing is queued by the caller unless `invalid` is empty (or it was told to skip invalid rows).
 */
export function parseSeed(bytes: Uint8Array, format: SeedFormat, opts: SeedOptions): SeedParseResult {
  const source = () => [bytes];
  const check = checkSeed(source, format, opts);
  const byIndex = new Map<number, SeedRow>();
  for (const { index, ...row } of validRows(source, format, opts, check)) byIndex.set(index, row);
  const valid = [...check.order].map((i) => byIndex.get(i)!);
  return {
    format: check.format,
    total: check.total,
    valid,
    invalid: check.invalid,
    warnings: check.warnings,
  };
}
