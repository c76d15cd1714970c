/**
 * PostgreSQL text cannot hold U+0000, which SQLite stores. Text that tas-sync did not make
 * (a rejected record's bytes, an error message quoting them) has it written as the six
 * characters \u0000, so one odd record cannot fail a whole snapshot. Valid JSON never holds it
 * raw, so content hashes (over raw_json of accepted records) are not affected.
 */
export function textValue<T extends string | null | undefined>(s: T): T {
  return (typeof s === "string" && s.includes("\u0000") ? s.replaceAll("\u0000", "\\u0000") : s) as T;
}
