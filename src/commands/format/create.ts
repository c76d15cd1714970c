/**
 * Streaming output formats for query results: table, csv, json, ndjson. Pure (text goes to a
 * `write` function), so any row source can use them: a better-sqlite3 iterator, a pg cursor.
 */
import { type CsvOptions, csvSink } from "./csv.js";
import type { OutputFormat } from "./defaults.js";
import { jsonSink, ndjsonSink } from "./json.js";
import type { RowSink, Write } from "./sink.js";
import { type TableOptions, tableSink } from "./table.js";

/** The sink of a format; `table` options apply to the table only, `csv` ones to csv. */
export function createSink(
  format: OutputFormat,
  write: Write,
  table: TableOptions = {},
  csv: CsvOptions = {},
): RowSink {
  switch (format) {
    case "table":
      return tableSink(write, table);
    case "csv":
      return csvSink(write, csv);
    case "json":
      return jsonSink(write);
    case "ndjson":
      return ndjsonSink(write);
  }
}
