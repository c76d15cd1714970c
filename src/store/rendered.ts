/**
 * A statement the query builder writes and the driver runs: the builder renders its SQL once,
 * and each run fills the parameters by name. For where drizzle's own execution costs (`npm run
 * bench:outbox`) or gets a value wrong (on SQLite a null given to a placeholder of a boolean
 * column becomes false): the statement, its columns and its conditions still come from the
 * builder and the state machine.
 */
import { Param, Placeholder } from "drizzle-orm";

export interface Renderable {
  toSQL(): { sql: string; params: unknown[] };
}

type Slot = { name: string; encode: (v: unknown) => unknown } | { value: unknown };

const asIs = (v: unknown) => v;

function slotOf(p: unknown): Slot {
  if (p instanceof Placeholder) return { name: String(p.name), encode: asIs };
  // A placeholder given as a column's value: the column's encoder applies, except to null.
  if (p instanceof Param && p.value instanceof Placeholder) {
    const { encoder } = p;
    return {
      name: String(p.value.name),
      encode: (v) => (v === null || v === undefined ? null : encoder.mapToDriverValue(v)),
    };
  }
  return { value: p };
}

/** The SQL text, and a function from named values to the positional parameters. */
export function render(query: Renderable): {
  text: string;
  args(values: Record<string, unknown>): unknown[];
} {
  const { sql: text, params } = query.toSQL();
  const slots = params.map(slotOf);
  // Per row of a 100,000-row seed file: plain arrays and a loop, no closure per parameter.
  const names = slots.map((s) => ("name" in s ? s.name : null));
  const encoders = slots.map((s) => ("name" in s && s.encode !== asIs ? s.encode : null));
  const constants = slots.map((s) => ("value" in s ? s.value : undefined));
  const n = slots.length;
  return {
    text,
    args: (values) => {
      const out = new Array<unknown>(n);
      for (let i = 0; i < n; i++) {
        const name = names[i];
        if (name === null || name === undefined) out[i] = constants[i];
        else {
          const encode = encoders[i];
          out[i] = encode ? encode(values[name]) : values[name];
        }
      }
      return out;
    },
  };
}
