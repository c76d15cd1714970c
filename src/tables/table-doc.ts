/** The words of one table or view in the table reference (./descriptions.ts). */
export interface TableDoc {
  /** One paragraph: what one row is. */
  summary: string;
  columns: Record<string, string>;
  /** Markdown after the column table: rules a reader of the rows needs. */
  notes?: string;
}
