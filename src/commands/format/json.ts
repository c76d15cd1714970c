/**
 * JSON output: `json` is one array written element by element (valid JSON once `end` ran),
 * `ndjson` one object per line. Objects are built as text so that column order is kept (a JS
 * object would move integer-like names such as "2" first) and 64-bit integers stay exact.
 */
import type { RowSink, Write } from "./sink.js";
import { valueJson } from "./value.js";

function objectWriter() {
  let keys: string[] = [];
  return {
    begin(columns: readonly string[]) {
      keys = columns.map((c) => `${JSON.stringify(c)}:`);
    },
    object(values: readonly unknown[]): string {
      let text = "{";
      for (let i = 0; i < keys.length; i++) text += `${i ? "," : ""}${keys[i]}${valueJson(values[i])}`;
      return `${text}}`;
    },
  };
}

/** A JSON array of row objects: `[` with the first row, `]` at the end (`[]` for none). */
export function jsonSink(write: Write): RowSink {
  const objects = objectWriter();
  let rows = 0;
  return {
    begin: (columns) => objects.begin(columns),
    row(values) {
      write(`${rows++ === 0 ? "[\n" : ",\n"}${objects.object(values)}`);
    },
    end() {
      write(rows === 0 ? "[]\n" : "\n]\n");
    },
  };
}

/** One JSON object per line. */
export function ndjsonSink(write: Write): RowSink {
  const objects = objectWriter();
  return {
    begin: (columns) => objects.begin(columns),
    row(values) {
      write(`${objects.object(values)}\n`);
    },
    end() {},
  };
}
