/**
 * An ordered set of JSON documents keyed by id, kept as their serialized UTF-8 bytes. Bytes,
 * not objects, are the source of truth: admin endpoints may store deliberately odd JSON as-is,
 * and the array body served to clients is one memcpy per item, cached until the next mutation.
 * (Joining strings instead was several times slower at 100k plans: non-Latin-1 text makes a two-byte
 * string that then has to be re-encoded.)
 */
export class JsonList {
  private readonly items = new Map<number, Buffer>();
  private cached: Buffer | undefined;

  get size(): number {
    return this.items.size;
  }

  /** Replaces in place (keeping list order) or appends. `json` must already be valid JSON. */
  set(id: number, json: string): void {
    this.items.set(id, Buffer.from(json, "utf8"));
    this.cached = undefined;
  }

  delete(id: number): boolean {
    const had = this.items.delete(id);
    if (had) this.cached = undefined;
    return had;
  }

  get(id: number): string | undefined {
    return this.items.get(id)?.toString("utf8");
  }

  /** The stored bytes as given, for serving without re-encoding. */
  bytes(id: number): Buffer | undefined {
    return this.items.get(id);
  }

  ids(): number[] {
    return [...this.items.keys()];
  }

  /** Parsed copies, for in-process inspection by tests; never used on the serving path. */
  values(): unknown[] {
    return [...this.items.values()].map((bytes) => JSON.parse(bytes.toString("utf8")) as unknown);
  }

  /** The JSON array of all items, built once per mutation. */
  body(): Buffer {
    this.cached ??= this.build();
    return this.cached;
  }

  private build(): Buffer {
    let length = 2 + Math.max(0, this.items.size - 1);
    for (const item of this.items.values()) length += item.length;
    const out = Buffer.allocUnsafe(length);
    let at = 0;
    out[at++] = 0x5b; // [
    for (const item of this.items.values()) {
      if (at > 1) out[at++] = 0x2c; // ,
      at += item.copy(out, at);
    }
    out[at++] = 0x5d; // ]
    return out;
  }
}
