/** Shared helpers of the pull pipeline: hashing and one-line reasons for bad records. */
import { createHash } from "node:crypto";
import type { z } from "zod";

/** SHA-256 (hex) of a record's JSON as received (its UTF-8 bytes; a string is encoded so). */
export function contentHash(json: string | Buffer): string {
  return createHash("sha256").update(json).digest("hex");
}

/** "period.start_date: expected number, received string; ..." (at most 5 issues). */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "(record)"}: ${i.message}`);
  const more = error.issues.length > 5 ? ` (+${error.issues.length - 5} more)` : "";
  return shown.join("; ") + more;
}

/** The record's id if it has a usable one, so a rejected record can still be named. */
export function idOf(value: unknown): number | null {
  if (value && typeof value === "object" && "id" in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  }
  return null;
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, reason: `invalid JSON: ${(err as Error).message}` };
  }
}
