/**
 * An aligned plain-text table that streams: the first `sampleRows` rows are held to size the
 * columns, then every later row is written at once with those widths (a wider cell is cut to
 * fit, except numbers). Cells are escaped (no control character reaches the terminal), measured in terminal
 * columns, and cut at grapheme boundaries.
 */
import { escapeControls } from "../../text/escape.js";
import { DEFAULT_MAX_CELL_WIDTH } from "./defaults.js";
import type { RowSink, Write } from "./sink.js";
import { valueText } from "./value.js";
import { type Fitted, fitWidth } from "./width.js";

export interface TableOptions {
  /** Widest a cell may be, in terminal columns (default 48). */
  maxCellWidth?: number;
  /** Rows held to size the columns before the first line is written (default 1000). */
  sampleRows?: number;
}

const DEFAULT_SAMPLE_ROWS = 1000;
const NULL_TEXT = "NULL";
const GAP = "  ";

/**
 * Enough raw text for any cell width: a cell is never wider than a few hundred columns, and
 * measuring a multi-megabyte value whole would cost time for nothing. Cut before escaping, so the
 * cut text still ends in "…" (its width exceeds the cell).
 */
function cellSource(v: unknown, max: number): string {
  const s = valueText(v) ?? NULL_TEXT;
  const limit = 16 * max + 64;
  if (s.length <= limit) return s;
  // Keep a surrogate pair whole: cutting between its halves would show a lone surrogate.
  const end = s.charCodeAt(limit - 1) >= 0xd800 && s.charCodeAt(limit - 1) <= 0xdbff ? limit - 1 : limit;
  return `${s.slice(0, end)}${" ".repeat(max)}`;
}

/** A number is never cut (a cut number reads as another one): it may push its row's later cells right. */
function cell(v: unknown, max: number): Fitted {
  if (typeof v === "number" || typeof v === "bigint") {
    const text = String(v);
    return { text, width: text.length };
  }
  return fitWidth(escapeControls(cellSource(v, max)), max);
}

function line(cells: readonly Fitted[], widths: readonly number[]): string {
  let text = "";
  const last = cells.length - 1;
  for (let i = 0; i <= last; i++) {
    const c = cells[i]!;
    text += c.text;
    if (i < last) text += " ".repeat(Math.max(0, widths[i]! - c.width)) + GAP;
  }
  return `${text.trimEnd()}\n`;
}

/** A table sink; `(no rows)` when the result is empty. */
export function tableSink(write: Write, opts: TableOptions = {}): RowSink {
  const max = Math.max(1, opts.maxCellWidth ?? DEFAULT_MAX_CELL_WIDTH);
  const sample = Math.max(1, opts.sampleRows ?? DEFAULT_SAMPLE_ROWS);
  let header: Fitted[] = [];
  let held: Fitted[][] | null = [];
  let widths: number[] = [];
  let rows = 0;

  const flush = (sampled: Fitted[][]) => {
    // At least 1, so that a later cut value still shows its "…".
    widths = header.map((h) => Math.max(1, h.width));
    for (const r of sampled) {
      for (let i = 0; i < r.length; i++) widths[i] = Math.max(widths[i]!, r[i]!.width);
    }
    write(line(header, widths));
    write(
      line(
        widths.map((w) => ({ text: "-".repeat(w), width: w })),
        widths,
      ),
    );
    for (const r of sampled) write(line(r, widths));
    held = null;
  };

  return {
    begin(columns) {
      header = columns.map((c) => fitWidth(escapeControls(c), max));
    },
    row(values) {
      rows++;
      if (held !== null) {
        held.push(header.map((_, i) => cell(values[i], max)));
        if (held.length >= sample) flush(held);
        return;
      }
      write(
        line(
          widths.map((w, i) => cell(values[i], w)),
          widths,
        ),
      );
    },
    end() {
      if (rows === 0) {
        if (header.length > 0) flush([]);
        write("(no rows)\n");
      } else if (held !== null) flush(held);
    },
  };
}
