import {
  MAX_DEPTH,
  MAX_KEY,
  metadataDocument,
  metadataEntity,
  metadataOs,
  own,
  type RecordKind,
  ROUTES,
} from "./paths.js";
import { valuePolicy } from "./values.js";

/** Paths kept per observation (a hostile service could send endless distinct keys). */
const MAX_PATHS = 5000;
/** Longest string listed as a value: a longer one makes its path capped (free text). */
const MAX_VALUE = 100;

export function jsonTypeIndex(v: unknown): number {
  switch (typeof v) {
    case "string":
      return 0;
    case "number":
      return Number.isInteger(v) ? 1 : 2;
    case "boolean":
      return 3;
    case "object":
      return v === null ? 4 : Array.isArray(v) ? 6 : 5;
    default:
      return 4;
  }
}

interface ValueCount {
  count: number;
  example: number | null;
}

export class PathNode {
  present = 0;
  readonly types = [0, 0, 0, 0, 0, 0, 0];
  min: number | null = null;
  max: number | null = null;
  /** String values and their counts; null once capped. */
  values: Map<string, ValueCount> | null = new Map();
  /** A record id carrying the path (first one seen with +1), and one per type. */
  example: number | null = null;
  readonly typeExamples: (number | null)[] = [null, null, null, null, null, null, null];
  /** Whether some record with +1 carried it (the run saw it). */
  seen = false;
  children: Map<string, PathNode> | null = null;
  constructor(
    readonly entity: string,
    readonly path: string,
  ) {}
}

/**
 * The values met while walking a record: for each, where (node), of which JSON type, and the
 * value itself, as parallel arrays (no object per value: a sync walks millions of them).
 */
export class Touches {
  readonly nodes: PathNode[] = [];
  readonly types: number[] = [];
  readonly values: unknown[] = [];
  length = 0;

  clear(): void {
    // The arrays keep their capacity; entries past `length` are overwritten before use.
    this.length = 0;
  }

  push(node: PathNode, type: number, value: unknown): void {
    const i = this.length++;
    this.nodes[i] = node;
    this.types[i] = type;
    this.values[i] = value;
  }
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

function cutKey(key: string): string {
  if (key.length <= MAX_KEY) return key;
  const last = key.charCodeAt(MAX_KEY - 1);
  return key.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_KEY - 1 : MAX_KEY);
}

export class Observation {
  readonly #roots = new Map<string, PathNode>();
  readonly #all: PathNode[] = [];
  /** Paths that could not be kept (past MAX_PATHS): their values are not observed. */
  overflow = 0;
  readonly #touches = new Touches();

  constructor(readonly valueCap: number) {}

  /** Adds a path as it was in another observation (./observation-state.ts): a root, or a parent's child. */
  attach(node: PathNode, parent: PathNode | null, key: string): void {
    if (parent) {
      parent.children ??= new Map();
      parent.children.set(key, node);
    } else this.#roots.set(key, node);
    this.#all.push(node);
  }

  /** Every path met so far, in the order first met. */
  get nodes(): readonly PathNode[] {
    return this.#all;
  }

  /** The node of an entity itself (path ""). */
  root(entity: string): PathNode {
    let node = this.#roots.get(entity);
    if (!node) {
      node = new PathNode(entity, "");
      this.#roots.set(entity, node);
      this.#all.push(node);
    }
    return node;
  }

  #child(parent: PathNode, key: string, asItem = false): PathNode | null {
    const k = asItem ? "[]" : cutKey(key);
    const found = parent.children?.get(k);
    if (found) return found;
    if (this.#all.length >= MAX_PATHS) {
      this.overflow++;
      return null;
    }
    const node = new PathNode(parent.entity, asItem ? `${parent.path}[]` : join(parent.path, k));
    // Free text and identifiers (valuePolicy): their values are never kept.
    if (valuePolicy(node.entity, node.path) === "free") node.values = null;
    parent.children ??= new Map();
    parent.children.set(k, node);
    this.#all.push(node);
    return node;
  }

  /**
   * The values of a record, walked: each is a touch (node, type, value). Reused between calls:
   * read them before the next call. Nothing is counted yet.
   */
  walk(kind: RecordKind, record: unknown): Touches {
    this.#touches.clear();
    this.#entity(kind, record);
    return this.#touches;
  }

  /** Counts a walked record: +1 when stored, -1 when replaced or deleted. */
  count(touches: Touches, sign: 1 | -1, id: number | null): void {
    const { nodes, types, values } = touches;
    for (let i = 0; i < touches.length; i++) {
      const node = nodes[i] as PathNode;
      const type = types[i] as number;
      const value = values[i];
      node.present += sign;
      node.types[type] = (node.types[type] as number) + sign;
      if (sign > 0) {
        node.seen = true;
        node.example ??= id;
        node.typeExamples[type] ??= id;
      }
      if (type === 0) this.#value(node, value as string, sign, id);
      else if (sign > 0 && (type === 1 || type === 2)) {
        const n = value as number;
        if (node.min === null || n < node.min) node.min = n;
        if (node.max === null || n > node.max) node.max = n;
      }
    }
  }

  /** Walks and counts a record in one step. */
  record(kind: RecordKind, record: unknown, sign: 1 | -1, id: number | null): void {
    this.count(this.walk(kind, record), sign, id);
  }

  #value(node: PathNode, value: string, sign: number, id: number | null): void {
    const values = node.values;
    if (values === null) return;
    if (value.length > MAX_VALUE) {
      node.values = null;
      return;
    }
    const v = values.get(value);
    if (v) {
      v.count += sign;
      if (sign > 0) v.example ??= id;
      return;
    }
    if (values.size >= this.valueCap) {
      node.values = null;
      return;
    }
    values.set(value, { count: sign, example: sign > 0 ? id : null });
  }

  #touch(node: PathNode, value: unknown): number {
    const type = jsonTypeIndex(value);
    this.#touches.push(node, type, value);
    return type;
  }

  /** An instance of an entity: itself, then each of its keys. */
  #entity(entity: string, value: unknown): void {
    const root = this.root(entity);
    if (this.#touch(root, value) !== 5) return;
    const routes = own(ROUTES, entity);
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const child = this.#child(root, key);
      if (!child) continue;
      const v = obj[key];
      const route = own(routes, key);
      if (!route) {
        this.#nested(child, v, 1);
        continue;
      }
      const type = this.#touch(child, v);
      if ("into" in route) {
        if (type === 5) this.#entity(route.into, v);
      } else if ("items" in route) {
        if (type === 6) for (const item of v as unknown[]) this.#entity(route.items, item);
      } else if (type === 5) {
        this.#entity(route.app, v);
        const doc = metadataDocument((v as Record<string, unknown>).mobile_app_metadata);
        if (doc)
          this.#entity(metadataEntity(metadataOs(v as Record<string, unknown>, route.metadataOs)), doc);
      }
    }
  }

  /** A value inside an entity: itself, and what it holds (to MAX_DEPTH). */
  #nested(node: PathNode, value: unknown, depth: number): void {
    const type = this.#touch(node, value);
    if (depth >= MAX_DEPTH) return;
    if (type === 5) {
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const child = this.#child(node, key);
        if (child) this.#nested(child, obj[key], depth + 1);
      }
    } else if (type === 6) {
      const items = this.#child(node, "", true);
      if (items) for (const item of value as unknown[]) this.#nested(items, item, depth + 1);
    }
  }
}
