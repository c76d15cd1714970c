/**
 * What the checks between rows need of each row, and nothing more: a 1M-row file is held as a
 * few typed arrays, its keys and the problems of its bad rows, never as row objects. Rows come
 * in file order; duplicate keys and names are found as they come (the first is always earlier).
 */
import type { Candidate } from "./row.js";
import type { FieldProblem } from "./types.js";

const INITIAL = 1024;

export class RowTable {
  /** Rows added. */
  n = 0;
  lines = new Int32Array(INITIAL);
  /** NaN when the row has none. */
  companies = new Float64Array(INITIAL);
  projects = new Float64Array(INITIAL);
  readonly keys: (string | null)[] = [];
  readonly parentKeys: (string | null)[] = [];
  /** Only rows with problems have an entry. */
  readonly problems = new Map<number, FieldProblem[]>();
  /** Each key's first row. */
  readonly byKey = new Map<string, number>();
  /** `<project>/<name>`'s first row (the string is the row's key when that is its default key). */
  readonly #byName = new Map<string, number>();
  /** The same per company, for a name that two companies use (rare: projects belong to one). */
  readonly #byCompanyName = new Map<string, number>();

  add(c: Candidate): void {
    const i = this.n++;
    if (i === this.lines.length) this.#grow();
    this.lines[i] = c.line;
    this.companies[i] = c.companyId ?? Number.NaN;
    this.projects[i] = c.projectId ?? Number.NaN;
    this.keys.push(c.key);
    this.parentKeys.push(c.parentKey);
    if (c.problems.length > 0) this.problems.set(i, c.problems);
    this.#checkName(i, c);
    this.#checkKey(i, c.key);
  }

  addProblem(i: number, problem: FieldProblem): void {
    const list = this.problems.get(i);
    if (list === undefined) this.problems.set(i, [problem]);
    else list.push(problem);
  }

  /**
   * The service allows one scenario of a name per project. Two rows with the same name (under
   * different keys) cannot both be created: the second would clash, or, after a lost answer,
   * be taken for the first's scenario.
   */
  #checkName(i: number, c: Candidate): void {
    if (c.companyId === null || c.projectId === null || c.scenarioName === null) return;
    const made = `${c.projectId}/${c.scenarioName}`;
    // The default key is this very text: keep one string for both.
    const name = made === c.key ? c.key : made;
    let first = this.#byName.get(name);
    if (first === undefined) {
      this.#byName.set(name, i);
      return;
    }
    if (this.companies[first] !== c.companyId) {
      const own = `${c.companyId}/${name}`;
      first = this.#byCompanyName.get(own);
      if (first === undefined) {
        this.#byCompanyName.set(own, i);
        return;
      }
    }
    if (this.keys[first] !== c.key)
      this.addProblem(i, {
        field: "scenario_name",
        reason: `duplicate scenario_name in project ${c.projectId}, first on line ${this.lines[first]}`,
      });
  }

  #checkKey(i: number, key: string | null): void {
    if (key === null) return;
    const first = this.byKey.get(key);
    if (first === undefined) this.byKey.set(key, i);
    else this.addProblem(i, { field: "key", reason: `duplicate key, first on line ${this.lines[first]}` });
  }

  #grow(): void {
    const size = this.lines.length * 2;
    const grow = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.lines = grow(this.lines, (n) => new Int32Array(n));
    this.companies = grow(this.companies, (n) => new Float64Array(n));
    this.projects = grow(this.projects, (n) => new Float64Array(n));
  }
}
