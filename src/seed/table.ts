/**
 * What the checks between rows need of each row, and nothing more: a 1M-row file is held as
 * typed arrays (line, company, project, the hashes of its key, parent key and name) and the
 * problems of its bad rows, never as row objects or strings. Rows come in file order; duplicate
 * keys and names are found as they come (the first is always earlier). The few strings a
 * problem quotes (a row's key, an unknown parent_key, the keys of a cycle) are read again from
 * the file when the checks are done (`needs`, `fill`).
 */
import { clip, quoted } from "./fields.js";
import { HashIndex, hash64 } from "./hash-index.js";
import type { Candidate } from "./row.js";
import type { FieldProblem } from "./types.js";

const INITIAL = 1024;
const NONE = -1;
/** Longest cycle spelled out in full; longer ones are abbreviated. */
const CYCLE_SHOWN = 10;

/** A problem whose words need strings of the file: made when they are read again. */
export type TableProblem =
  | FieldProblem
  | { field: "parent_key"; unknownParent: true }
  | { field: "parent_key"; cycle: number[] };

export class RowTable {
  /** Rows added. */
  n = 0;
  lines = new Int32Array(INITIAL);
  /** NaN when the row has none. */
  companies = new Float64Array(INITIAL);
  projects = new Float64Array(INITIAL);
  /** Two halves per row; `flags` says which hashes a row has. */
  keyHash = new Int32Array(2 * INITIAL);
  parentHash = new Int32Array(2 * INITIAL);
  flags = new Uint8Array(INITIAL);
  /** Only rows with problems have an entry. */
  readonly problems = new Map<number, TableProblem[]>();
  /** Each key's first row. */
  readonly byKey = new HashIndex();
  /** `<company>/<project>/<name>`'s first row. */
  readonly #byName = new HashIndex();
  /** The strings a problem needs, by row: kept from the first pass for rows bad on their own, read again otherwise. */
  readonly keyOf = new Map<number, string | null>();
  readonly parentKeyOf = new Map<number, string | null>();
  readonly #h = new Int32Array(2);

  add(c: Candidate): void {
    const i = this.n++;
    if (i === this.lines.length) this.#grow();
    this.lines[i] = c.line;
    this.companies[i] = c.companyId ?? Number.NaN;
    this.projects[i] = c.projectId ?? Number.NaN;
    let flags = 0;
    if (c.key !== null) {
      hash64(c.key, this.#h);
      this.keyHash[2 * i] = this.#h[0]!;
      this.keyHash[2 * i + 1] = this.#h[1]!;
      flags |= HAS_KEY;
    }
    if (c.parentKey !== null) {
      hash64(c.parentKey, this.#h);
      this.parentHash[2 * i] = this.#h[0]!;
      this.parentHash[2 * i + 1] = this.#h[1]!;
      flags |= HAS_PARENT;
    }
    this.flags[i] = flags;
    if (c.problems.length > 0) {
      this.problems.set(i, c.problems);
      this.keyOf.set(i, c.key);
    }
    this.#checkName(i, c);
    this.#checkKey(i);
  }

  addProblem(i: number, problem: TableProblem): void {
    const list = this.problems.get(i);
    if (list === undefined) this.problems.set(i, [problem]);
    else list.push(problem);
  }

  /** The first row with row i's parent key as its key, or -1 (none, or no parent key). */
  parentRow(i: number): number {
    if ((this.flags[i]! & HAS_PARENT) === 0) return NONE;
    return this.byKey.find(this.parentHash[2 * i]!, this.parentHash[2 * i + 1]!);
  }

  hasParentKey(i: number): boolean {
    return (this.flags[i]! & HAS_PARENT) !== 0;
  }

  #sameKey(i: number, j: number): boolean {
    const [a, b] = [this.flags[i]! & HAS_KEY, this.flags[j]! & HAS_KEY];
    if (a === 0 || b === 0) return a === b;
    return this.keyHash[2 * i] === this.keyHash[2 * j] && this.keyHash[2 * i + 1] === this.keyHash[2 * j + 1];
  }

  /**
   * The service allows one scenario of a name per project. Two rows with the same name (under
   * different keys) cannot both be created: the second would clash, or, after a lost answer,
   * be taken for the first's scenario.
   */
  #checkName(i: number, c: Candidate): void {
    if (c.companyId === null || c.projectId === null || c.scenarioName === null) return;
    hash64(`${c.companyId}/${c.projectId}/${c.scenarioName}`, this.#h);
    const first = this.#byName.addFirst(this.#h[0]!, this.#h[1]!, i);
    if (first !== i && !this.#sameKey(first, i))
      this.addProblem(i, {
        field: "scenario_name",
        reason: `duplicate scenario_name in project ${c.projectId}, first on line ${this.lines[first]}`,
      });
  }

  #checkKey(i: number): void {
    if ((this.flags[i]! & HAS_KEY) === 0) return;
    const first = this.byKey.addFirst(this.keyHash[2 * i]!, this.keyHash[2 * i + 1]!, i);
    if (first !== i)
      this.addProblem(i, { field: "key", reason: `duplicate key, first on line ${this.lines[first]}` });
  }

  /** Rows whose key (or parent key) a problem still needs from the file. */
  needs(): Set<number> {
    const rows = new Set<number>();
    for (const [i, list] of this.problems) {
      if (!this.keyOf.has(i)) rows.add(i);
      for (const p of list) {
        if ("unknownParent" in p && !this.parentKeyOf.has(i)) rows.add(i);
        if ("cycle" in p) for (const j of p.cycle) if (!this.keyOf.has(j)) rows.add(j);
      }
    }
    return rows;
  }

  /** The strings of a row read again. */
  fill(i: number, key: string | null, parentKey: string | null): void {
    this.keyOf.set(i, key);
    this.parentKeyOf.set(i, parentKey);
  }

  /** Row i's problems in words (after `fill` gave what `needs` asked for). */
  words(i: number): FieldProblem[] {
    return (this.problems.get(i) ?? []).map((p): FieldProblem => {
      if ("unknownParent" in p)
        return { field: p.field, reason: `unknown parent_key ${quoted(this.parentKeyOf.get(i) ?? "")}` };
      if ("cycle" in p)
        return {
          field: p.field,
          reason: `parent cycle: ${spell(p.cycle.map((j) => clip(this.keyOf.get(j) ?? "")))}`,
        };
      return p;
    });
  }

  #grow(): void {
    const size = this.lines.length * 2;
    const lines = new Int32Array(size);
    lines.set(this.lines);
    this.lines = lines;
    const companies = new Float64Array(size);
    companies.set(this.companies);
    this.companies = companies;
    const projects = new Float64Array(size);
    projects.set(this.projects);
    this.projects = projects;
    const keyHash = new Int32Array(2 * size);
    keyHash.set(this.keyHash);
    this.keyHash = keyHash;
    const parentHash = new Int32Array(2 * size);
    parentHash.set(this.parentHash);
    this.parentHash = parentHash;
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.flags = flags;
  }
}

const HAS_KEY = 1;
const HAS_PARENT = 2;

function spell(keys: string[]): string {
  if (keys.length <= CYCLE_SHOWN) return [...keys, keys[0]].join(" -> ");
  return `${keys.slice(0, CYCLE_SHOWN).join(" -> ")} -> ... (${keys.length} rows)`;
}
