/**
 * Checks between rows once every row is in: parent_key links, cycles, parent and child in one
 * project; then the order of creation. (Duplicate keys and names are found as rows come, in
 * RowTable.) All loops are iterative: a chain of 100,000 parents must not overflow the stack.
 */
import type { RowTable } from "./table.js";

const NONE = -1;

/**
 * Adds the cross-row problems to the table, and returns the indexes of the valid rows,
 * parents before children and otherwise in file order. A row whose parent row is invalid, for
 * any reason and transitively, is invalid too.
 */
export function resolveRows(rows: RowTable): Int32Array {
  const parentOf = linkParents(rows);
  markCycles(rows, parentOf);
  checkSameProject(rows, parentOf);
  return orderAndPropagate(rows, parentOf);
}

function linkParents(rows: RowTable): Int32Array {
  const parentOf = new Int32Array(rows.n).fill(NONE);
  for (let i = 0; i < rows.n; i++) {
    if (!rows.hasParentKey(i)) continue;
    const parent = rows.parentRow(i);
    if (parent === NONE) rows.addProblem(i, { field: "parent_key", unknownParent: true });
    else parentOf[i] = parent;
  }
  return parentOf;
}

/** Each row has at most one parent, so a walk up from each row finds every cycle once. */
function markCycles(rows: RowTable, parentOf: Int32Array): void {
  const state = new Uint8Array(rows.n); // 0 unseen, 1 on the current walk, 2 done
  for (let i = 0; i < rows.n; i++) {
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
        rows.addProblem(node, { field: "parent_key", cycle: [...cycle.slice(at), ...cycle.slice(0, at)] });
      });
      // Cut the cycle: its rows are invalid already, and later walks must terminate.
      for (const node of cycle) parentOf[node] = NONE;
    }
    for (const node of walk) state[node] = 2;
  }
}

/** A sub scenario lives in its parent's project (seed 2.1.1), so a link across projects cannot work. */
function checkSameProject(rows: RowTable, parentOf: Int32Array): void {
  const { projects, companies } = rows;
  for (let i = 0; i < rows.n; i++) {
    const p = parentOf[i]!;
    if (p === NONE) continue;
    const [parentProject, project] = [projects[p]!, projects[i]!];
    const [parentCompany, company] = [companies[p]!, companies[i]!];
    if (!Number.isNaN(parentProject) && !Number.isNaN(project) && parentProject !== project) {
      rows.addProblem(i, {
        field: "parent_key",
        reason: `parent_key row is in project ${parentProject}, this row is in project ${project}`,
      });
    } else if (!Number.isNaN(parentCompany) && !Number.isNaN(company) && parentCompany !== company) {
      rows.addProblem(i, {
        field: "parent_key",
        reason: `parent_key row is in company ${parentCompany}, this row is in company ${company}`,
      });
    }
  }
}

/** Emits each row after its ancestors, pulling an ancestor forward to just before its first child. */
function orderAndPropagate(rows: RowTable, parentOf: Int32Array): Int32Array {
  const done = new Uint8Array(rows.n);
  const bad = new Uint8Array(rows.n);
  const order = new Int32Array(rows.n);
  let valid = 0;
  const chain: number[] = [];
  for (let i = 0; i < rows.n; i++) {
    for (let j = i; j !== NONE && done[j] === 0; j = parentOf[j]!) chain.push(j);
    while (chain.length > 0) {
      const k = chain.pop()!;
      done[k] = 1;
      const parent = parentOf[k]!;
      if (parent !== NONE && bad[parent] === 1) {
        rows.addProblem(k, { field: "parent_key", reason: `parent row ${rows.lines[parent]} is invalid` });
      }
      if (rows.problems.has(k)) bad[k] = 1;
      else order[valid++] = k;
    }
  }
  return order.subarray(0, valid);
}
