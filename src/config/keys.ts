/**
 * The config file's keys, walked from the zod schema itself: the "did you mean" of an unknown
 * key and the configuration reference (scripts/docs.ts) read the same list, so neither can
 * name a key the schema does not have.
 */
import type { z } from "zod";

export interface ConfigKey {
  /** As written in docs and errors: `http.timeoutMs`, `companies[].every`. */
  path: string;
  /** What zod checks, in words: `integer`, `boolean`, `"a" | "b"`, `array of integer`, `object`. */
  kind: string;
  /** The default zod fills in, when it has one (prefaulted objects have none of their own). */
  default?: unknown;
  /** The keys one level below, for an object (both shapes of a union). */
  children: string[];
}

type Node = z.core.$ZodType;

const defOf = (node: Node) => node._zod.def as unknown as Record<string, unknown> & { type: string };

/** Every key of the schema, parents before children, in the schema's own order. */
export function configKeys(schema: Node): ConfigKey[] {
  const keys: ConfigKey[] = [];
  walk(schema, "", keys);
  return keys;
}

function walk(node: Node, path: string, out: ConfigKey[]): void {
  const { inner, defaultValue, hasDefault, nullable } = unwrap(node);
  const objects = objectShapes(inner);
  if (path) {
    const kind = `${kindOf(inner)}${nullable ? ", or null" : ""}`;
    const key: ConfigKey = { path, kind, children: objects.flatMap((s) => Object.keys(s)) };
    if (hasDefault) key.default = defaultValue;
    out.push(key);
  }
  const seen = new Set<string>();
  for (const shape of objects)
    for (const [name, child] of Object.entries(shape)) {
      if (seen.has(name)) continue;
      seen.add(name);
      walk(child, path ? `${path}.${name}` : name, out);
    }
  const def = defOf(inner);
  if (def.type === "array") {
    const element = unwrap(def.element as Node).inner;
    if (objectShapes(element).length) walk(element, `${path}[]`, out);
  }
}

/** Strip optional/default/prefault/nullable/pipe wrappers, keeping the default and nullability. */
function unwrap(node: Node): { inner: Node; defaultValue?: unknown; hasDefault: boolean; nullable: boolean } {
  let inner = node;
  let defaultValue: unknown;
  let hasDefault = false;
  let nullable = false;
  for (let i = 0; i < 20; i++) {
    const def = defOf(inner);
    if (def.type === "nullable") nullable = true;
    if (def.type === "default" && !hasDefault) {
      defaultValue = def.defaultValue;
      hasDefault = true;
    }
    if (["optional", "default", "prefault", "nullable", "readonly"].includes(def.type))
      inner = def.innerType as Node;
    else if (def.type === "pipe") inner = def.in as Node;
    else break;
  }
  return { inner, defaultValue, hasDefault, nullable };
}

function objectShapes(node: Node): Record<string, Node>[] {
  const def = defOf(node);
  if (def.type === "object") return [def.shape as Record<string, Node>];
  if (def.type === "union") return (def.options as Node[]).flatMap((o) => objectShapes(unwrap(o).inner));
  return [];
}

function kindOf(node: Node): string {
  const def = defOf(node);
  switch (def.type) {
    case "number":
      return numberKind(def.checks as { _zod: { def: NumberCheck } }[] | undefined);
    case "enum":
      return Object.values(def.entries as Record<string, string>)
        .map((v) => `"${v}"`)
        .join(" | ");
    case "array":
      return `array of ${kindOf(unwrap(def.element as Node).inner)}`;
    case "union":
      return objectShapes(node).length ? "object" : "union";
    default:
      return def.type;
  }
}

interface NumberCheck {
  check: string;
  format?: string;
  value?: number;
  inclusive?: boolean;
}

/** `integer`, `integer ≥ 1`, `integer 1–64`, `number > 0`, from zod's checks. */
function numberKind(checks: { _zod: { def: NumberCheck } }[] = []): string {
  const defs = checks.map((c) => c._zod.def);
  const integer = defs.some((d) => d.check === "number_format" && d.format === "safeint");
  let min: number | undefined;
  let max: number | undefined;
  let above: number | undefined;
  for (const d of defs) {
    if (d.check === "greater_than" && d.value !== undefined) {
      if (d.inclusive) min = d.value;
      else if (integer) min = d.value + 1;
      else above = d.value;
    }
    if (d.check === "less_than" && d.value !== undefined)
      max = d.inclusive || !integer ? d.value : d.value - 1;
  }
  const name = integer ? "integer" : "number";
  if (min !== undefined && max !== undefined) return `${name} ${min}–${max}`;
  if (min !== undefined) return `${name} ≥ ${min}`;
  if (above !== undefined) return `${name} > ${above}`;
  if (max !== undefined) return `${name} ≤ ${max}`;
  return name;
}

/** The keys allowed in the object at a zod issue's path (`["companies", 0, "auth"]`). */
export function keysAt(keys: ConfigKey[], issuePath: readonly PropertyKey[]): string[] {
  const path = issuePath.map((p) => (typeof p === "number" ? "[]" : `.${String(p)}`)).join("");
  const normalized = path.replace(/^\./, "").replace(/\.\[\]/g, "[]");
  if (normalized === "")
    return keys.filter((k) => !k.path.includes(".") && !k.path.includes("[")).map((k) => k.path);
  return keys.find((k) => k.path === normalized)?.children ?? [];
}
