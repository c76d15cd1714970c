/** Helpers for reading one record's JSON text. Pure. */

/** The record's id if it has a usable one, so a rejected record can still be named. */
export function idOf(value: unknown): number | null {
  if (value && typeof value === "object" && "id" in value) {
    const id = (value as { id: unknown }).id;
    if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  }
  return null;
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; reason: string };

/** JSON.parse without the throw: invalid JSON gives `invalid JSON: <engine's message>`. */
export function parseJson(text: string): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, reason: `invalid JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
}
