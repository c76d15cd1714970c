/** Plain-text tables of a few rows held in memory (status, push-failures, demo). */
import { tableSink } from "./format/table.js";

/**
 * Rows as an aligned table; the columns of every row, in first-seen order (rows may differ in
 * shape). For large or unbounded results stream through `tableSink` instead.
 */
export function formatTable(rows: Record<string, unknown>[], maxWidth = 48): string {
  if (rows.length === 0) return "(no rows)";
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const parts: string[] = [];
  const sink = tableSink((t) => parts.push(t), { maxCellWidth: maxWidth, sampleRows: rows.length });
  sink.begin(cols);
  for (const r of rows) sink.row(cols.map((c) => r[c]));
  sink.end();
  return parts.join("").replace(/\n$/, "");
}
