/**
 * Checks between rows: duplicate keys, duplicate names in a project, parent_key links,
 * cycles, parent and child in one project; then the order of creation. All loops are iterative: a chain of 100,000 parents
 * must not overflow the stack.
 */
import { clip, quoted } from "./fields.js";
import type { Candidate } from "./row.js";

const NONE = -1;
/** Longest cycle spelled out in full; longer ones are abbreviated. */
const CYCLE_SHOWN = 10;

/**
 * Adds the cross-row problems to the candidates, and returns the indexes of the valid
 * ones, parents before children and otherwise in file order. A row whose parent row is
 * invalid, for any reason and transitively, is invalid too.
 */
export function resolveRows(rows: Candidate[]): number[] {
  checkDuplicateNames(rows);
  const parentOf = linkParents(rows);
  markCycles(rows, parentOf);
  checkSameProject(rows, parentOf);
  return orderAndPropagate(rows, parentOf);
}

/**
 * The service allows one scenario of a name per project. Two rows with the same name (under
 * different keys) cannot both be created: the second would clash, or, after a lost answer,
 * be taken for the first's scenario.
 */
function checkDuplicateNames(rows: Candidate[]): void {
  const byName = new Map<string, number>();
  rows.forEach((row, i) => {
    if (row.companyId === null || row.projectId === null || row.scenarioName === null) return;
    const name = `${row.companyId}/${row.projectId}/${row.scenarioName}`;
    const first = byName.get(name);
    if (first === undefined) byName.set(name, i);
    else if (rows[first]!.key !== row.key) {
      row.problems.push({
        field: "scenario_name",
        reason: `duplicate scenario_name in project ${row.projectId}, first on line ${rows[first]!.line}`,
      });
    }
  });
}

function linkParents(rows: Candidate[]): Int32Array {
  const byKey = new Map<string, number>();
  rows.forEach((row, i) => {
    if (row.key === null) return;
    const first = byKey.get(row.key);
    if (first === undefined) byKey.set(row.key, i);
    else row.problems.push({ field: "key", reason: `duplicate key, first on line ${rows[first]!.line}` });
  });
  const parentOf = new Int32Array(rows.length).fill(NONE);
  rows.forEach((row, i) => {
    if (row.parentKey === null) return;
    const parent = byKey.get(row.parentKey);
    if (parent === undefined) {
      row.problems.push({
        field: "parent_key",
        reason: `unknown parent_key ${quoted(row.parentKey)}`,
      });
    } else parentOf[i] = parent;
  });
  return parentOf;
}

/** Each row has at most one parent, so a walk up from each row finds every cycle once. */
function markCycles(rows: Candidate[], parentOf: Int32Array): void {
  const state = new Uint8Array(rows.length); // 0 unseen, 1 on the current walk, 2 done
  for (let i = 0; i < rows.length; i++) {
    const walk: number[] = [];
    let j = i;
    while (j !== NONE && state[j] === 0) {
      state[j] = 1;
      walk.push(j);
      j = parentOf[j]!;
    }
    if (j !== NONE && state[j] === 1) {
      const cycle = walk.slice(walk.indexOf(j));
      cycle.forEach((node, at) => {
        const keys = [...cycle.slice(at), ...cycle.slice(0, at)].map((n) => clip(rows[n]!.key ?? ""));
        rows[node]!.problems.push({ field: "parent_key", reason: `parent cycle: ${spell(keys)}` });
      });
      // Cut the cycle: its rows are invalid already, and later walks must terminate.
      for (const node of cycle) parentOf[node] = NONE;
    }
    for (const node of walk) state[node] = 2;
  }
}

function spell(keys: string[]): string {
  if (keys.length <= CYCLE_SHOWN) return [...keys, keys[0]].join(" -> ");
  return `${keys.slice(0, CYCLE_SHOWN).join(" -> ")} -> ... (${keys.length} rows)`;
}

/** A sub scenario lives in its parent's project (seed 2.1.1), so a link across projects cannot work. */
function checkSameProject(rows: Candidate[], parentOf: Int32Array): void {
  rows.forEach((row, i) => {
    const parent = rows[parentOf[i]!];
    if (parent === undefined) return;
    if (parent.projectId !== null && row.projectId !== null && parent.projectId !== row.projectId) {
      row.problems.push({
        field: "parent_key",
        reason: `parent_key row is in project ${parent.projectId}, this row is in project ${row.projectId}`,
      });
    } else if (parent.companyId !== null && row.companyId !== null && parent.companyId !== row.companyId) {
      row.problems.push({
        field: "parent_key",
        reason: `parent_key row is in company ${parent.companyId}, this row is in company ${row.companyId}`,
      });
    }
  });
}

/** Emits each row after its ancestors, pulling an ancestor forward to just before its first child. */
function orderAndPropagate(rows: Candidate[], parentOf: Int32Array): number[] {
  const done = new Uint8Array(rows.length);
  const bad = new Uint8Array(rows.length);
  const order: number[] = [];
  const chain: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    for (let j = i; j !== NONE && done[j] === 0; j = parentOf[j]!) chain.push(j);
    while (chain.length > 0) {
      const k = chain.pop()!;
      done[k] = 1;
      const row = rows[k]!;
      const parent = parentOf[k]!;
      if (parent !== NONE && bad[parent] === 1) {
        row.problems.push({ field: "parent_key", reason: `parent row ${rows[parent]!.line} is invalid` });
      }
      if (row.problems.length > 0) bad[k] = 1;
      else order.push(k);
    }
  }
  return order;
}
