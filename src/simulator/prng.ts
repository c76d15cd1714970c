/**
 * Seeded pseudo-random numbers for the simulator. Everything the simulator invents (data
 * and fault decisions) comes from here, never from Math.random, so a seed reproduces a run.
 */

/** mulberry32: tiny, fast and good enough for test data; returns floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes a base seed with a stream number so independent streams do not correlate. */
export function deriveSeed(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Convenience helpers over one mulberry32 stream. */
export class Rng {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Distinct items, in the order of the source list (stable output for a seed). */
  subset<T>(items: readonly T[], count: number): T[] {
    const want = Math.min(count, items.length);
    const chosen = new Set<number>();
    while (chosen.size < want) chosen.add(Math.floor(this.next() * items.length));
    return items.filter((_, i) => chosen.has(i));
  }

  /** Lowercase hex string of the given length (hashes, fake digests). */
  hex(length: number): string {
    let out = "";
    while (out.length < length)
      out += Math.floor(this.next() * 0x100000000)
        .toString(16)
        .padStart(8, "0");
    return out.slice(0, length);
  }
}
