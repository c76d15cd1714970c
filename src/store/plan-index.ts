/**
 * A company's plans as its index holds them: id, content hash, deleted or not; found by id and
 * by content hash. Held in typed arrays, outside V8's object heap: a sync of 100,000 plans
 * builds one per run, and as Maps of strings and objects (~30 MB) each waited in the old
 * generation for V8's next full collection, so a daemon re-syncing a large company climbed by
 * that much per run (398 MB RSS after ten no-change re-syncs). Here it is ~6 MB of array
 * buffers and 1.1 MB of heap (the same ten re-syncs: 216 MB, the heap flat at ~35 MB).
 */

/** A stored record as an index knows it: its content hash, and whether it is deleted. */
export interface KnownRecord {
  hash: string;
  deleted: boolean;
}

const DIGEST_BYTES = 32;
/** What contentHash makes: lowercase hex SHA-256. */
const HEX_DIGEST = /^[0-9a-f]{64}$/;

export class PlanIndex {
  readonly #ids: Float64Array;
  readonly #deleted: Uint8Array;
  /** SHA-256 digests, 32 bytes per entry. */
  readonly #digests: Buffer;
  /** Open addressing, entry + 1 (0: empty), by id and by the digest's first four bytes. */
  readonly #byId: Int32Array;
  readonly #byHash: Int32Array;
  readonly #mask: number;
  /** Stored hashes that are no lowercase hex SHA-256 (hand-edited rows, tests): entry -> hash. */
  readonly #odd: ReadonlyMap<number, string>;
  readonly #oddByHash: ReadonlyMap<string, number>;
  readonly size: number;

  /** @internal Made by PlanIndexBuilder. */
  constructor(
    ids: Float64Array,
    deleted: Uint8Array,
    digests: Buffer,
    size: number,
    odd: Map<number, string>,
  ) {
    this.#ids = ids;
    this.#deleted = deleted;
    this.#digests = digests;
    this.size = size;
    this.#odd = odd;
    this.#oddByHash = new Map([...odd].map(([e, hash]) => [hash, ids[e] as number]));
    let capacity = 16;
    while (capacity < size * 2) capacity *= 2;
    this.#mask = capacity - 1;
    this.#byId = new Int32Array(capacity);
    this.#byHash = new Int32Array(capacity);
    for (let e = 0; e < size; e++) {
      this.#byId[this.#idSlot(ids[e] as number)] = e + 1;
      // A second plan with the same content (never ours: the content holds the id): the last wins.
      if (!odd.has(e)) this.#byHash[this.#hashSlotOfEntry(e)] = e + 1;
    }
  }

  /** The plan whose stored content has this hash (lowercase hex SHA-256), if any. */
  idOfHash(hash: string): number | undefined {
    // A company's first sync: nothing to find (its 100,000 elements skip the checks below).
    if (this.size === 0) return undefined;
    const odd = this.#oddByHash.get(hash);
    if (odd !== undefined) return odd;
    if (!HEX_DIGEST.test(hash)) return undefined;
    let h = 0;
    for (let i = 0; i < 8; i++) h = (h << 4) | hexValue(hash.charCodeAt(i));
    for (let slot = mix(h) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const e = (this.#byHash[slot] as number) - 1;
      if (e < 0) return undefined;
      if (this.#digestIs(e, hash)) return this.#ids[e];
    }
  }

  has(id: number): boolean {
    return this.#entry(id) >= 0;
  }

  /** Whether the plan is deleted; undefined when it is not the company's. */
  isDeleted(id: number): boolean | undefined {
    const e = this.#entry(id);
    return e < 0 ? undefined : this.#deleted[e] === 1;
  }

  /** The ids of the live (not deleted) plans, in the order the store listed them. */
  *live(): IterableIterator<number> {
    for (let e = 0; e < this.size; e++) if (this.#deleted[e] === 0) yield this.#ids[e] as number;
  }

  get(id: number): KnownRecord | undefined {
    const e = this.#entry(id);
    return e < 0 ? undefined : this.#record(e);
  }

  /** Every plan, in the order the store listed them. */
  *[Symbol.iterator](): IterableIterator<[number, KnownRecord]> {
    for (let e = 0; e < this.size; e++) yield [this.#ids[e] as number, this.#record(e)];
  }

  #record(e: number): KnownRecord {
    const at = e * DIGEST_BYTES;
    const hash = this.#odd.get(e) ?? this.#digests.toString("hex", at, at + DIGEST_BYTES);
    return { hash, deleted: this.#deleted[e] === 1 };
  }

  /** The plan's entry, or -1. */
  #entry(id: number): number {
    return (this.#byId[this.#idSlot(id)] as number) - 1;
  }

  /** The slot that holds the id, or the empty one where it would go. */
  #idSlot(id: number): number {
    for (let slot = idHash(id) & this.#mask; ; slot = (slot + 1) & this.#mask) {
      const e = (this.#byId[slot] as number) - 1;
      if (e < 0 || this.#ids[e] === id) return slot;
    }
  }

  #hashSlotOfEntry(e: number): number {
    const d = this.#digests;
    const at = e * DIGEST_BYTES;
    let slot = mix(d.readInt32BE(at)) & this.#mask;
    for (let o = (this.#byHash[slot] as number) - 1; o >= 0; o = (this.#byHash[slot] as number) - 1) {
      if (d.compare(d, o * DIGEST_BYTES, o * DIGEST_BYTES + DIGEST_BYTES, at, at + DIGEST_BYTES) === 0) break;
      slot = (slot + 1) & this.#mask;
    }
    return slot;
  }

  /** Whether entry e's digest is `hash` (lowercase hex). */
  #digestIs(e: number, hash: string): boolean {
    const d = this.#digests;
    const at = e * DIGEST_BYTES;
    for (let i = 0; i < DIGEST_BYTES; i++) {
      const byte = (hexValue(hash.charCodeAt(2 * i)) << 4) | hexValue(hash.charCodeAt(2 * i + 1));
      if (byte !== d[at + i]) return false;
    }
    return true;
  }
}

/** Collects a company's plans as the store reads them; `build` makes the index. */
export class PlanIndexBuilder {
  #ids = new Float64Array(1024);
  #deleted = new Uint8Array(1024);
  #digests = Buffer.alloc(1024 * DIGEST_BYTES);
  #size = 0;
  readonly #odd = new Map<number, string>();

  /**
   * One plan: its id (an integer, once per index: plans.id is the table's primary key), its
   * content hash (hex SHA-256), deleted or not.
   */
  add(id: number, hash: string, deleted: boolean): void {
    if (this.#size === this.#ids.length) this.#grow();
    const e = this.#size++;
    this.#ids[e] = id;
    this.#deleted[e] = deleted ? 1 : 0;
    if (HEX_DIGEST.test(hash)) this.#digests.write(hash, e * DIGEST_BYTES, DIGEST_BYTES, "hex");
    else this.#odd.set(e, hash);
  }

  /** The index, of exactly the plans added (copies: the builder may be used again). */
  build(): PlanIndex {
    const n = this.#size;
    const digests = Buffer.allocUnsafe(n * DIGEST_BYTES);
    this.#digests.copy(digests, 0, 0, n * DIGEST_BYTES);
    return new PlanIndex(this.#ids.slice(0, n), this.#deleted.slice(0, n), digests, n, new Map(this.#odd));
  }

  #grow(): void {
    const n = this.#ids.length * 2;
    const ids = new Float64Array(n);
    ids.set(this.#ids);
    const deleted = new Uint8Array(n);
    deleted.set(this.#deleted);
    const digests = Buffer.alloc(n * DIGEST_BYTES);
    this.#digests.copy(digests);
    this.#ids = ids;
    this.#deleted = deleted;
    this.#digests = digests;
  }
}

/** An index of these plans (tests, and stores that have them in hand). */
export function planIndexOf(plans: Iterable<readonly [number, KnownRecord]>): PlanIndex {
  const b = new PlanIndexBuilder();
  for (const [id, known] of plans) b.add(id, known.hash, known.deleted);
  return b.build();
}

/** 0-15 for a lowercase hex digit (the caller checked it is one). */
function hexValue(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}

function mix(h: number): number {
  let x = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  x = Math.imul(x ^ (x >>> 16), 0x45d9f3b);
  return x ^ (x >>> 16);
}

/** Ids are integers, at most 2^53 in size (a plan id past it is rejected before any index sees it). */
function idHash(id: number): number {
  const lo = id | 0;
  const hi = (id / 4294967296) | 0;
  return mix(lo ^ Math.imul(hi, 0x9e3779b1));
}
