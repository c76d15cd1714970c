/**
 * Database values as text. SQLite hands out null, numbers, bigints (with safeIntegers), strings
 * and Buffers; PostgreSQL drivers add booleans, Dates and parsed JSON. Each format asks here.
 */

/** A blob as the SQL literal that would write it back: X'0AFF'. */
function blobLiteral(b: Uint8Array): string {
  return `X'${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex").toUpperCase()}'`;
}

/** The value as plain text; null for SQL NULL (each format shows that its own way). */
export function valueText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (v instanceof Uint8Array) return blobLiteral(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v) ?? String(v);
}

/** The value as JSON text: integers exact (bigints unquoted), blobs as their X'..' literal. */
export function valueJson(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "null";
  if (v instanceof Uint8Array) return JSON.stringify(blobLiteral(v));
  return JSON.stringify(v) ?? "null";
}
