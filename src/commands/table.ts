/** Plain-text tables for command output. */
export function formatTable(rows: Record<string, unknown>[], maxWidth = 48): string {
  if (rows.length === 0) return "(no rows)";
  // Columns of every row, in first-seen order (rows may differ in shape).
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? "NULL" : String(v);
    return s.length > maxWidth ? `${s.slice(0, maxWidth - 1)}…` : s;
  };
  const body = rows.map((r) => cols.map((c) => cell(r[c])));
  const widths = cols.map((c, i) => Math.max(c.length, ...body.map((b) => (b[i] as string).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i] as number))
      .join("  ")
      .trimEnd();
  return [line(cols), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
