/**
 * Fields the reader does not know. They are ignored (a file may carry columns for people, such
 * as "owner"), but a typo of a known field would silently drop its value: each unknown name is
 * reported once, with the known field it is closest to. With `strict` they are problems.
 */
import { editDistance } from "../text/suggest.js";
import { createScenarioBodySchema } from "../wire/schemas.js";
import { ALIASES, STEERING_FIELDS } from "./fields.js";
import type { RawRecord, SeedWarning } from "./types.js";

/** Every field a row may have: the create body, the steering fields, the aliases. */
const KNOWN_FIELDS: readonly string[] = [
  ...STEERING_FIELDS,
  ...Object.keys(createScenarioBodySchema.shape),
  ...ALIASES.map(([alias]) => alias),
];
const KNOWN = new Set(KNOWN_FIELDS);

const squash = (s: string) => s.toLowerCase().replace(/[\s_.-]+/g, "");

/** The known field a name most likely means ("descripton" -> "description"), or null. */
export function suggestField(name: string): string | null {
  const lower = name.toLowerCase();
  // Case, spaces and separators aside the same name: "Scenario Name", "scenarioName".
  const same = KNOWN_FIELDS.find((k) => squash(k) === squash(name));
  if (same !== undefined) return same;
  const limit = lower.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const known of KNOWN_FIELDS) {
    if (Math.abs(known.length - lower.length) > limit) continue;
    const d = editDistance(lower, known);
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

function describe(kind: "field" | "column", name: string): string {
  const suggestion = suggestField(name);
  return `unknown ${kind}${suggestion === null ? "" : ` (did you mean "${suggestion}"?)`}`;
}

/** Unknown CSV header columns, as warnings or (strict) as problems of the header row. */
export function unknownColumns(names: readonly string[], line: number): SeedWarning[] {
  return names
    .filter((n) => n !== "" && !KNOWN.has(n))
    .map((field) => ({ line, field, reason: describe("column", field), rows: 0 }));
}

/**
 * Unknown fields of JSON records, a record at a time: one warning per name (its first line, how
 * many rows have it). With `strict`, each record's unknown fields are added to its problems instead.
 */
export class UnknownFields {
  readonly #seen = new Map<string, SeedWarning>();
  constructor(private readonly strict: boolean) {}

  add(record: RawRecord): void {
    if (record.fields === null) return;
    for (const field in record.fields) {
      if (KNOWN.has(field)) continue;
      let warning = this.#seen.get(field);
      if (warning === undefined) {
        warning = { line: record.line, field, reason: describe("field", field), rows: 0 };
        this.#seen.set(field, warning);
      }
      warning.rows++;
      if (this.strict) record.problems.push({ field, reason: warning.reason });
    }
  }

  warnings(): SeedWarning[] {
    return this.strict ? [] : [...this.#seen.values()];
  }
}
