import { readCsv } from "./csv.js";
import { type DecodedText, decodeSeed } from "./decode.js";
import { resolveRows } from "./graph.js";
import { readJsonArray } from "./json-array.js";
import { readNdjson } from "./ndjson.js";
import { type Candidate, toCandidate } from "./row.js";
import type {
  RawRecord,
  ReadRecords,
  SeedFormat,
  SeedOptions,
  SeedParseResult,
  SeedProblem,
  SeedRow,
  SeedWarning,
} from "./types.js";
import { unknownColumns, unknownFields } from "./unknown.js";

const readers: Record<SeedFormat, (d: DecodedText) => ReadRecords> = {
  ndjson: readNdjson,
  json: readJsonArray,
  csv: readCsv,
};

/** One record's candidate row; should a check ever throw, that row alone is reported, not the file. */
function candidate(record: RawRecord, opts: SeedOptions): Candidate {
  try {
    return toCandidate(record, opts);
  } catch (err) {
    const reason = `could not read the row: ${err instanceof Error ? err.message : String(err)}`;
    return toCandidate({ line: record.line, fields: null, problems: [{ field: null, reason }] }, opts);
  }
}

/**
 * Reads and validates a whole seed file. Pure: bytes in, rows and problems out. Nothing
 * is queued by the caller unless `invalid` is empty (or it was told to skip invalid rows).
 */
export function parseSeed(bytes: Uint8Array, format: SeedFormat, opts: SeedOptions): SeedParseResult {
  const { records, header, fileProblem } = readers[format](decodeSeed(bytes));
  if (fileProblem !== null) {
    return { format, total: 0, valid: [], invalid: [{ ...fileProblem, key: null }], warnings: [] };
  }
  let warnings: SeedWarning[];
  if (header !== undefined) {
    warnings = unknownColumns(header.names, header.line);
    // A strict CSV with an unknown column: the header is wrong, so is every row under it.
    if (opts.strict && warnings.length > 0) {
      const invalid = warnings.map(({ line, field, reason }) => ({ line, key: null, field, reason }));
      return { format, total: records.length, valid: [], invalid, warnings: [] };
    }
  } else warnings = unknownFields(records, opts.strict === true);
  const rows = records.map((r) => candidate(r, opts));
  const order = resolveRows(rows);

  const valid: SeedRow[] = order.map((i) => {
    const r = rows[i]!;
    // A row without problems has all of these; the checks only narrow the types.
    if (r.key === null || r.companyId === null || r.body === null)
      throw new Error(`seed row ${r.line} incomplete`);
    return {
      key: r.key,
      line: r.line,
      companyId: r.companyId,
      projectId: r.body.project_id,
      scenarioName: r.body.scenario_name,
      body: r.body,
      parentKey: r.parentKey,
    };
  });
  // Rows are in file order, so problems come out sorted by line.
  const invalid: SeedProblem[] = rows.flatMap((r) =>
    r.problems.map((p) => ({ line: r.line, key: r.key, field: p.field, reason: p.reason })),
  );
  return { format, total: records.length, valid, invalid, warnings };
}
