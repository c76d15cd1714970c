/** Format constants the help texts need, apart from the sinks (the catalogue loads no sink). */
export const DEFAULT_MAX_CELL_WIDTH = 48;

export const OUTPUT_FORMATS = ["table", "csv", "json", "ndjson"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function isOutputFormat(s: string): s is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(s);
}
