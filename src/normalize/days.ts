/** days_of_week parsing: "2,3,4,5,6" in the Java Calendar convention (1 = SUNDAY ... 7 = SATURDAY). */

export interface DayOfWeek {
  dayNumber: number;
  dayName: string;
}

/** Index = Java Calendar day number; index 0 is unused. */
export const DAY_NAMES = [
  "",
  "SUNDAY",
  "MONDAY",
  "TUESDAY",
  "WEDNESDAY",
  "THURSDAY",
  "FRIDAY",
  "SATURDAY",
] as const;

const DIGITS = /^\d+$/;

/**
 * The days named in a days_of_week string, as a bit mask (bit n set = day n).
 * Whitespace around tokens is ignored; empty, non-integer and out-of-range tokens are skipped.
 */
export function daysOfWeekMask(s: string | null | undefined): number {
  if (typeof s !== "string" || s.length === 0) return 0;
  let mask = 0;
  for (const raw of s.split(",")) {
    const token = raw.trim();
    if (!DIGITS.test(token)) continue;
    const n = Number(token);
    if (n >= 1 && n <= 7) mask |= 1 << n;
  }
  return mask;
}

/** Distinct days of a days_of_week string, ascending by day number. "" gives []. */
export function parseDaysOfWeek(s: string | null | undefined): DayOfWeek[] {
  const mask = daysOfWeekMask(s);
  const out: DayOfWeek[] = [];
  for (let n = 1; n <= 7; n++) {
    if (mask & (1 << n)) out.push({ dayNumber: n, dayName: DAY_NAMES[n] ?? "" });
  }
  return out;
}
