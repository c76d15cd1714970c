/**
 * The wire checks of a plan and a scheduled report (seed 2.2, 2.3; API-FACTS.md), compiled once
 * from the zod schemas of wire/schemas.ts, the one declaration of the wire shapes: the hot path
 * of a sync runs them on every new or changed record, where zod's own parse cost more than the
 * rest of the reading, and they name every problem with its path and the value as sent. What
 * they accept is what the declaration says (every enum open, unknown fields allowed, optional
 * fields taking null as well as absence), plus one rule zod lacks: a value declared unknown is
 * kept as JSON text, so it may nest at most MAX_DEPTH deep (the store could not serialize more).
 *
 * Keys are data: a field is read only when the object has it as its own property (Object.hasOwn),
 * and a record's keys are its own keys, so "__proto__", "constructor" or "prototype" in the input
 * is an unknown field like any other (ignored in an object, a key like any other in a map),
 * never a way to the prototype.
 */
import type { z } from "zod";
import { planSchema, scheduledReportSchema } from "../wire/schemas.js";
import { truncate } from "./text.js";

/** Problems named in a reason; the rest are counted. */
const MAX_ISSUES = 5;
/** Nesting allowed inside the items kept as JSON text (plan alerts, fetch_app_files). */
export const MAX_DEPTH = 64;
const PREVIEW = 40;

type Obj = Record<string, unknown>;

/** Collects problems as "path: what" lines, naming at most MAX_ISSUES. */
class Issues {
  readonly lines: string[] = [];
  count = 0;

  add(path: string, what: string): void {
    this.count++;
    if (this.lines.length < MAX_ISSUES) this.lines.push(`${path || "(record)"}: ${what}`);
  }

  /** The one-line reason, or null when there was no problem. */
  reason(): string | null {
    if (this.count === 0) return null;
    const more = this.count > MAX_ISSUES ? ` (+${this.count - MAX_ISSUES} more)` : "";
    return this.lines.join("; ") + more;
  }
}

/** A short, exact description of a value for a reason: never a rounded number. */
export function preview(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string": {
      const s = JSON.stringify(truncate(v, PREVIEW));
      return v.length > PREVIEW ? `${s.slice(0, -1)}..." (${v.length} characters)` : s;
    }
    case "number":
      return Number.isSafeInteger(v) || !Number.isInteger(v) ? String(v) : "a number beyond 2^53";
    case "object":
      return "an object";
    default:
      return String(v);
  }
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function want(issues: Issues, path: string, expected: string, v: unknown): void {
  const what =
    typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v)
      ? "an integer beyond 2^53 cannot be read exactly"
      : `expected ${expected}, got ${preview(v)}`;
  issues.add(path, what);
}

/**
 * A compiled check: adds the problems of value `v` to `issues`. The value sits at `key` of the
 * container at `path` (key null: at `path` itself); the full path is built only when needed.
 */
type Check = (issues: Issues, v: unknown, path: string, key: string | number | null) => void;

const at = (path: string, key: string | number | null) => (key === null ? path : join(path, key));

/** One declared field of an object: its name, its check, and whether it may be absent or null. */
type Field = readonly [key: string, check: Check, nullish: boolean];

const own = (o: Obj, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

/** A zod schema's definition (zod 4's `_zod.def`), as far as the compiler reads it. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  checks?: { _zod: { def: { check: string; format?: string } } }[];
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Peels optional and nullable: the schema inside, and whether null and absence are allowed. */
function unwrap(schema: z.ZodType): [z.ZodType, boolean] {
  let nullish = false;
  let s = schema;
  for (let d = defOf(s); d.type === "optional" || d.type === "nullable"; d = defOf(s)) {
    nullish = true;
    s = d.innerType!;
  }
  return [s, nullish];
}

const unsupported = (what: string): never => {
  throw new Error(`wire check compiler: ${what} is not supported (extend normalize/validate.ts)`);
};

/**
 * Compiles one zod schema into a check. Only the kinds the wire schemas use are known; anything
 * else (a refinement, a length check, a strict object) throws when the module loads, so the
 * declaration cannot say more than the check enforces.
 */
function compile(schema: z.ZodType): Check {
  const d = defOf(schema);
  const formats = (d.checks ?? []).map((c) => c._zod.def.format ?? c._zod.def.check);
  switch (d.type) {
    case "number":
      if (formats.length === 1 && formats[0] === "safeint")
        return (issues, v, path, key) => {
          if (!Number.isSafeInteger(v)) want(issues, at(path, key), "an integer", v);
        };
      if (formats.length === 0)
        return (issues, v, path, key) => {
          if (typeof v !== "number" || !Number.isFinite(v)) want(issues, at(path, key), "a number", v);
        };
      return unsupported(`a number with ${formats.join(", ")}`);
    case "string":
      if (formats.length) return unsupported(`a string with ${formats.join(", ")}`);
      return (issues, v, path, key) => {
        if (typeof v !== "string") want(issues, at(path, key), "a string", v);
      };
    case "boolean":
      return (issues, v, path, key) => {
        if (typeof v !== "boolean") want(issues, at(path, key), "a boolean", v);
      };
    case "unknown":
      // Kept as JSON text: anything, nested at most MAX_DEPTH deep (checked without recursion).
      return (issues, v, path, key) => {
        if (typeof v === "object" && v !== null && depthExceeds(v, MAX_DEPTH))
          issues.add(at(path, key), `nested more than ${MAX_DEPTH} levels deep`);
      };
    case "array": {
      const item = compile(d.element!);
      return (issues, v, path, key) => {
        const here = at(path, key);
        if (!Array.isArray(v)) return want(issues, here, "an array", v);
        for (let i = 0; i < v.length; i++) item(issues, v[i], here, i);
      };
    }
    case "object": {
      const extra = d.catchall ? defOf(d.catchall).type : "strip";
      if (extra !== "unknown" && extra !== "strip") return unsupported(`an object with ${extra} extra keys`);
      const fields: Field[] = Object.entries(d.shape!).map(([key, s]) => {
        const [inner, nullish] = unwrap(s);
        return [key, compile(inner), nullish] as const;
      });
      return (issues, v, path, key) => {
        const here = at(path, key);
        if (!isObj(v)) return want(issues, here, "an object", v);
        for (let i = 0; i < fields.length; i++) {
          const [name, check, nullish] = fields[i]!;
          const value = own(v, name);
          if (value === undefined || value === null) {
            if (nullish) continue;
            if (value === undefined) {
              issues.add(join(here, name), "missing");
              continue;
            }
          }
          check(issues, value, here, name);
        }
      };
    }
    case "custom": {
      // A custom type is an opaque predicate: its fast check is the one given in CUSTOM.
      const given = CUSTOM.get(schema);
      return given ?? unsupported("a custom zod type without its check in CUSTOM");
    }
    default:
      return unsupported(`zod type "${d.type}"`);
  }
}

/** An object whose own values are all strings, each key (whatever its name) a key like any other. */
const stringValues: Check = (issues, v, path, key) => {
  const here = at(path, key);
  if (!isObj(v)) return want(issues, here, "an object", v);
  for (const k of Object.keys(v)) if (typeof v[k] !== "string") want(issues, join(here, k), "a string", v[k]);
};

/**
 * The fast checks of the declaration's custom types (zod cannot say what a predicate accepts):
 * plan.resolutions, the map of strings that keeps a "__proto__" key as data (wire/schemas.ts).
 * The property tests hold each to its declaration.
 */
const CUSTOM: ReadonlyMap<z.ZodType, Check> = new Map([
  [unwrap(planSchema.shape.resolutions)[0], stringValues],
]);

/** A top-level checker: null when `v` passes `check`, else the one-line reason. */
function checker(check: Check): (v: unknown) => string | null {
  return (v) => {
    const issues = new Issues();
    check(issues, v, "", null);
    return issues.reason();
  };
}

/** Whether a JSON value nests deeper than `max` (objects and arrays count one level each). */
export function depthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [v, depth] = top;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Null when `v` is a valid wire plan (then it is one), else the reason. */
export const checkPlan = checker(compile(planSchema));

/** Null when `v` is a valid wire scheduled report (then it is one), else the reason. */
export const checkReport = checker(compile(scheduledReportSchema));
