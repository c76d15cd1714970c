/** Durations written as text in the config: "500ms", "30s", "15m", "1h", "1h30m", "2d" (pure). */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Milliseconds of a duration text, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === "") return null;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== at) return null;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return Number.isFinite(total) ? Math.round(total) : null;
}

/** The shortest text for `ms` in the units above: 900000 -> "15m", 5400000 -> "1h30m". */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  let left = Math.round(ms);
  let out = "";
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
    ["ms", 1],
  ] as const) {
    if (left >= size) {
      out += `${Math.floor(left / size)}${unit}`;
      left %= size;
    }
  }
  return out;
}
