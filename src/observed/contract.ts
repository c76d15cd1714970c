/**
 * Schema contracts: what a sync does with a record that carries a path or a type outside the
 * accepted schema. The accepted schema: the documented fields (./documented.ts), and what the
 * mirror has observed, except what only open (unacknowledged) changes brought in. `evolve`
 * stores the record and records the change; `freeze` refuses it, naming the path and the
 * value; `discard_value` stores it without those paths in the JSON the columns keep (plan
 * alerts, fetch_app_files, mobile app metadata). Pure: no I/O.
 */
import { preview } from "../normalize/validate.js";
import { DOCUMENTED } from "./documented.js";
import { jsonTypeIndex, type PathNode, type Touches } from "./observation.js";
import { metadataDocument, metadataEntity, metadataOs, own } from "./paths.js";
import { pathKey } from "./settle.js";
import { JSON_TYPES, type JsonType, type ObservedPath, type SchemaChange } from "./types.js";

export type ContractMode = "evolve" | "freeze" | "discard_value";

/** Problems named in a refusal; the rest are counted. */
const MAX_NAMED = 5;

export class AcceptedSchema {
  /** Types stored at each path, but for those only an open change brought in. */
  readonly #known = new Map<string, Set<string>>();
  /** Types an acknowledged change brought in (accepted even if nothing holds them yet). */
  readonly #acknowledged = new Map<string, Set<string>>();

  /** `changes`: the company's change log, open and acknowledged. */
  constructor(
    known: readonly ObservedPath[],
    changes: readonly Pick<
      SchemaChange,
      "entity" | "path" | "kind" | "before" | "after" | "acknowledgedAt"
    >[],
  ) {
    const open = new Map<string, Set<string>>();
    for (const c of changes) {
      const target = c.acknowledgedAt === null ? open : this.#acknowledged;
      const k = pathKey(c.entity, c.path);
      for (const t of brought(c)) (target.get(k) ?? target.set(k, new Set()).get(k))?.add(t);
    }
    for (const p of known) {
      const k = pathKey(p.entity, p.path);
      const pending = open.get(k);
      const types = new Set<string>(JSON_TYPES.filter((t) => p.types[t] > 0 && !pending?.has(t)));
      if (types.size) this.#known.set(k, types);
    }
  }

  accepts(entity: string, path: string, type: JsonType): boolean {
    if (own(own(DOCUMENTED, entity), path)?.includes(type as never)) return true;
    const k = pathKey(entity, path);
    return (this.#known.get(k)?.has(type) ?? false) || (this.#acknowledged.get(k)?.has(type) ?? false);
  }

  /** Under freeze: why a walked record is refused (its paths outside the schema), or null. */
  refusal(touches: Touches): string | null {
    const named: string[] = [];
    let count = 0;
    for (let i = 0; i < touches.length; i++) {
      const node = touches.nodes[i] as PathNode;
      const value = touches.values[i];
      const t = JSON_TYPES[touches.types[i] as number] as JsonType;
      if (this.accepts(node.entity, node.path, t)) continue;
      if (count++ < MAX_NAMED) {
        const where = node.path ? `${node.entity}.${node.path}` : node.entity;
        named.push(`${where}: ${t} ${preview(value)}`);
      }
    }
    if (count === 0) return null;
    const more = count > MAX_NAMED ? ` (+${count - MAX_NAMED} more)` : "";
    return `outside the accepted schema (contract freeze): ${named.join("; ")}${more}`;
  }

  /**
   * Under discard_value: the plan without the paths outside the schema in the JSON kept in
   * columns (a copy, or the plan itself when there is none).
   */
  stripPlan(plan: Record<string, unknown>): Record<string, unknown> {
    let out = plan;
    const copy = () => {
      if (out === plan) out = { ...plan };
      return out;
    };
    for (const [field, entity] of [
      ["alerts", "plan_alert"],
      ["fetch_app_files", "fetch_app_file"],
    ] as const) {
      const items = plan[field];
      if (!Array.isArray(items)) continue;
      const kept = items.map((item) => this.#strip(entity, "", item));
      if (kept.some((k, i) => k !== items[i])) copy()[field] = kept;
    }
    for (const [field, slot] of [
      ["selected_android_mobile_app", "ANDROID"],
      ["selected_ios_mobile_app", "IOS"],
    ] as const) {
      const app = plan[field];
      if (typeof app !== "object" || app === null || Array.isArray(app)) continue;
      const a = app as Record<string, unknown>;
      const doc = metadataDocument(a.mobile_app_metadata);
      if (!doc) continue;
      const kept = this.#strip(metadataEntity(metadataOs(a, slot)), "", doc);
      if (kept !== doc) copy()[field] = { ...a, mobile_app_metadata: JSON.stringify(kept) };
    }
    return out;
  }

  /** A value without what is outside the schema under `entity`/`path` (the same value if nothing is). */
  #strip(entity: string, path: string, value: unknown): unknown {
    if (typeof value !== "object" || value === null) return value;
    if (Array.isArray(value)) {
      const itemPath = `${path}[]`;
      const kept = value
        .filter((v) => this.accepts(entity, itemPath, JSON_TYPES[jsonTypeIndex(v)] as JsonType))
        .map((v) => this.#strip(entity, itemPath, v));
      return kept.length === value.length && kept.every((k, i) => k === value[i]) ? value : kept;
    }
    const obj = value as Record<string, unknown>;
    let out: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(obj)) {
      const p = path ? `${path}.${k}` : k;
      const keep = this.accepts(entity, p, JSON_TYPES[jsonTypeIndex(v)] as JsonType);
      const stripped = keep ? this.#strip(entity, p, v) : undefined;
      if (keep && stripped === v) continue;
      out ??= { ...obj };
      if (keep) out[k] = stripped;
      else delete out[k];
    }
    return out ?? value;
  }
}

/** The types a change brought in: all it has for `added`, the new ones for `type_changed`. */
function brought(c: Pick<SchemaChange, "kind" | "before" | "after">): string[] {
  if (c.kind === "added") return (c.after ?? "").split(",");
  if (c.kind !== "type_changed") return [];
  const before = (c.before ?? "").split(",");
  return (c.after ?? "").split(",").filter((t) => !before.includes(t));
}
