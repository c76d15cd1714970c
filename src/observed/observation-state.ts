/**
 * An observation as plain data (structured-clonable), so that a worker thread reading part of a
 * run's records carries on from the run's observation and hands it back: its paths in the order
 * first met, each with where it hangs (its parent's index, -1 for an entity's root, and its key).
 */
import { Observation, PathNode } from "./observation.js";

export interface ObservationState {
  overflow: number;
  nodes: {
    parent: number;
    key: string;
    entity: string;
    path: string;
    present: number;
    types: number[];
    min: number | null;
    max: number | null;
    values: [string, number, number | null][] | null;
    example: number | null;
    typeExamples: (number | null)[];
    seen: boolean;
  }[];
}

export function observationState(o: Observation): ObservationState {
  const index = new Map<PathNode, number>();
  o.nodes.forEach((node, i) => {
    index.set(node, i);
  });
  const where = new Map<PathNode, { parent: number; key: string }>();
  o.nodes.forEach((node, i) => {
    for (const [key, child] of node.children ?? []) where.set(child, { parent: i, key });
  });
  const nodes = o.nodes.map((n) => ({
    ...(where.get(n) ?? { parent: -1, key: n.entity }),
    entity: n.entity,
    path: n.path,
    present: n.present,
    types: [...n.types],
    min: n.min,
    max: n.max,
    values:
      n.values && [...n.values].map(([v, c]): [string, number, number | null] => [v, c.count, c.example]),
    example: n.example,
    typeExamples: [...n.typeExamples],
    seen: n.seen,
  }));
  return { overflow: o.overflow, nodes };
}

export function observationFromState(valueCap: number, state: ObservationState): Observation {
  const o = new Observation(valueCap);
  o.overflow = state.overflow;
  const made: PathNode[] = [];
  for (const s of state.nodes) {
    const node = new PathNode(s.entity, s.path);
    node.present = s.present;
    s.types.forEach((t, i) => {
      node.types[i] = t;
    });
    node.min = s.min;
    node.max = s.max;
    node.values = s.values && new Map(s.values.map(([v, count, example]) => [v, { count, example }]));
    node.example = s.example;
    s.typeExamples.forEach((t, i) => {
      node.typeExamples[i] = t;
    });
    node.seen = s.seen;
    o.attach(node, s.parent < 0 ? null : (made[s.parent] as PathNode), s.key);
    made.push(node);
  }
  return o;
}
