/** The shape every output format has: column names once, then rows, then the end. */

/** Where a format's text goes; the text carries its own newlines. */
export type Write = (text: string) => void;

/**
 * A streaming row formatter. `begin` once with the column names, `row` once per result row
 * (values in column order), `end` once. Memory does not grow with the number of rows.
 */
export interface RowSink {
  begin(columns: readonly string[]): void;
  row(values: readonly unknown[]): void;
  end(): void;
}
