/**
 * A small YAML emitter (pure) for documents of plain data: objects, arrays, strings, numbers,
 * booleans and null, in block style. Enough for a dbt property file without a YAML library.
 */
export type YamlValue =
  | string
  | number
  | boolean
  | null
  | YamlValue[]
  | { [key: string]: YamlValue | undefined };

/** YAML 1.1 and 1.2 words a plain scalar would turn into a boolean or null. */
const RESERVED = /^(?:true|false|yes|no|on|off|y|n|null|~)$/i;
const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*(?:[.-][A-Za-z0-9_]+)*$/;

/** A string as a scalar: plain when it cannot be misread, else double-quoted (JSON's escapes are YAML's). */
export function scalar(text: string): string {
  return PLAIN.test(text) && !RESERVED.test(text) ? text : JSON.stringify(text);
}

function atom(value: Exclude<YamlValue, YamlValue[] | object> | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return scalar(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`YAML: ${value} is not a finite number`);
    return String(value);
  }
  return value ? "true" : "false";
}

const isBlock = (v: YamlValue | undefined): v is YamlValue[] | { [key: string]: YamlValue | undefined } =>
  typeof v === "object" && v !== null && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);

function entries(value: { [key: string]: YamlValue | undefined }): [string, YamlValue][] {
  return Object.entries(value).filter((e): e is [string, YamlValue] => e[1] !== undefined);
}

function lines(value: YamlValue, indent: string): string[] {
  if (Array.isArray(value)) {
    const out: string[] = [];
    for (const item of value) {
      if (!isBlock(item)) {
        out.push(`${indent}- ${inline(item)}`);
        continue;
      }
      // "- " then the item's first line; its other lines indented under it.
      const [first, ...rest] = lines(item, `${indent}  `);
      out.push(`${indent}- ${(first ?? "").slice(indent.length + 2)}`, ...rest);
    }
    return out;
  }
  if (typeof value === "object" && value !== null) {
    const out: string[] = [];
    for (const [key, v] of entries(value)) {
      if (isBlock(v)) out.push(`${indent}${scalar(key)}:`, ...lines(v, `${indent}  `));
      else out.push(`${indent}${scalar(key)}: ${inline(v)}`);
    }
    return out;
  }
  return [`${indent}${atom(value)}`];
}

/** An empty list or object inline ([] / {}), a scalar as itself. */
function inline(value: YamlValue): string {
  if (Array.isArray(value)) return "[]";
  if (typeof value === "object" && value !== null) return "{}";
  return atom(value);
}

/** The document as YAML text, ending with a newline. */
export function toYaml(doc: YamlValue): string {
  return isBlock(doc) ? `${lines(doc, "").join("\n")}\n` : `${inline(doc)}\n`;
}
