/**
 * A plan's rows (PlanRowSet) in bytes for the decided operations' file (./op-spool.ts): each row
 * its shape's id, then its values in the order of the shape's keys (said once per file, as JSON:
 * see `onShape`), each value as ./row-values.ts writes it. Decoding that is what the snapshot's
 * transaction pays for each plan the worker thread read; it makes each row's object at once,
 * with no array or JSON text between.
 *
 *   ROWS_MARK | hash | plan row | for each list: u32 count, its rows | operation or null
 *   a row: u16 shape id, its values
 *
 * The operation is said only when it is not the sync's `plan.write` (a replay's).
 */
import type { PlanRowSet } from "../tables/index.js";
import { ValueReader, ValueWriter } from "./row-values.js";

/** The first byte of an encoded row set: no JSON text starts with it. */
export const ROWS_MARK = 0x01;

/** Row shapes a file may hold (a u16 each). */
const MAX_SHAPES = 0xffff;

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
  /** Per shape, a compiled function that writes a row of it (its id, then its values). */
  readonly #encoders: ((w: ValueWriter, row: Row) => void)[] = [];
  /** The last shape of each position in the row set (rows of one list share theirs). */
  readonly #last: number[] = [];
  readonly #w = new ValueWriter();

  /** `maxShapes`: how many shapes one file may hold (a u16 each; fewer only in tests). */
  constructor(
    private readonly onShape: (id: number, keys: string[]) => void,
    private readonly maxShapes = MAX_SHAPES,
  ) {}

  /** A plan's rows, its content hash and, when another than `plan.write`, its operation: a new buffer. */
  encode(rows: PlanRowSet, hash: string, op?: string): Buffer {
    return Buffer.from(this.encodeView(rows, hash, op));
  }

  /**
   * As `encode`, in the encoder's own buffer: the bytes are good until its next call (the
   * decisions' file copies them straight into its pending frames, not through a buffer each).
   */
  encodeView(rows: PlanRowSet, hash: string, op?: string): Buffer {
    const w = this.#w;
    // From the start (with the first buffer's size again, if the last plan grew it), also after
    // an encode that threw midway (a shape too many, a BigInt).
    w.restart();
    w.need(1);
    w.buf[w.at++] = ROWS_MARK;
    w.value(hash);
    this.#row(rows.plan as Row, 0);
    for (let i = 0; i < LISTS.length; i++) {
      const list = rows[LISTS[i] as (typeof LISTS)[number]] as Row[];
      w.u32(list.length);
      for (let j = 0; j < list.length; j++) this.#row(list[j] as Row, i + 1);
    }
    w.value(op ?? null);
    return w.buf.subarray(0, w.at);
  }

  #row(row: Row, slot: number): void {
    const keys = Object.keys(row);
    const last = this.#last[slot];
    const id =
      last !== undefined && sameKeys(this.#shapes[last] as string[], keys) ? last : this.#shapeOf(keys, slot);
    (this.#encoders[id] as (w: ValueWriter, row: Row) => void)(this.#w, row);
  }

  #shapeOf(keys: string[], slot: number): number {
    let id = this.#shapes.findIndex((s) => sameKeys(s, keys));
    if (id < 0) {
      if (this.#shapes.length >= this.maxShapes)
        throw new Error(`plan rows of more than ${this.maxShapes} shapes in one decided operations' file`);
      id = this.#shapes.push(keys) - 1;
      this.#encoders[id] = encoder(id, keys);
      this.onShape(id, keys);
    }
    this.#last[slot] = id;
    return id;
  }
}

/**
 * `w.u16(id); w.value(row[key]); ...` in the shape's key order, compiled once per shape, instead
 * of walking each row's keys (its keys are still compared with the shape's): 15-40% less of the
 * worker thread's encoding, measured when rows were JSON arrays (a million rows per 100k
 * plans). Any key is safe in it: each is a JSON string literal.
 */
function encoder(id: number, keys: readonly string[]): (w: ValueWriter, row: Row) => void {
  const values = keys.map((k) => `w.value(r[${JSON.stringify(k)}]);`);
  return new Function("w", "r", [`w.u16(${id});`, ...values].join("\n")) as (
    w: ValueWriter,
    row: Row,
  ) => void;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Rows back as objects: one compiled maker per shape. */
export class RowsDecoder {
  readonly #makers: ((r: ValueReader) => Row)[] = [];
  readonly #r = new ValueReader();

  shape(id: number, keys: readonly string[]): void {
    this.#makers[id] = maker(keys);
  }

  /**
   * A plan's rows, its content hash and its operation, from `RowsEncoder.encode`'s bytes in `buf`
   * from `at` to `end` (they must end there).
   */
  decode(buf: Buffer, at: number, end: number): { rows: PlanRowSet; hash: string; op: string } {
    const r = this.#r;
    r.reset(buf, at, end);
    if (at >= end || buf[at] !== ROWS_MARK) throw r.problem("plan rows without their mark", at);
    r.at++;
    const hash = r.value();
    if (typeof hash !== "string") throw r.problem("a content hash that is no string", at + 1);
    const rows = { plan: this.#row() } as Record<string, unknown>;
    for (const list of LISTS) {
      const count = r.u32(`the count of ${list}`);
      // A row takes two bytes at least: a count past that is no count of these rows.
      if (count * 2 > end - r.at) throw r.problem(`${count} rows of ${list} past the rows' end`, r.at - 4);
      const out = new Array<Row>(count);
      for (let j = 0; j < count; j++) out[j] = this.#row();
      rows[list] = out;
    }
    const opAt = r.at;
    const op = r.value() ?? "plan.write";
    if (typeof op !== "string" || op === "") throw r.problem("an operation that is no name", opAt);
    if (r.at !== end) throw r.problem("the rows' end, before the frame's", r.at);
    return { rows: rows as unknown as PlanRowSet, hash, op };
  }

  #row(): Row {
    const id = this.#r.u16("a row's shape");
    const make = this.#makers[id];
    if (!make) throw this.#r.problem(`row shape ${id}, not said before,`, this.#r.at - 2);
    return make(this.#r);
  }
}

/**
 * An object literal of the shape's keys, each value read in turn (a literal's values are
 * evaluated in order): one hidden class for every row of the shape. A key is a JSON string
 * literal; `__proto__` is computed, so that it is an own key as any other (a quoted one would set
 * the prototype).
 */
function maker(keys: readonly string[]): (r: ValueReader) => Row {
  const props = keys.map(
    (k) => `${k === "__proto__" ? `[${JSON.stringify(k)}]` : JSON.stringify(k)}: r.value()`,
  );
  return new Function("r", `return { ${props.join(", ")} };`) as (r: ValueReader) => Row;
}
