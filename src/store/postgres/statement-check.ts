/**
 * Which statements `query` sends to PostgreSQL: decided from the parse tree of PostgreSQL's own
 * parser (libpg-query, the server's grammar compiled to WebAssembly), before anything runs.
 * Exactly one statement, and a read: SELECT (no INTO, no FOR UPDATE/SHARE), WITH without a
 * data-modifying part, VALUES, TABLE, EXPLAIN without ANALYZE, SHOW. COPY, DO, CALL, SET and
 * everything else are refused unsent. Comments, string literals and dollar quotes are the
 * parser's to read, so a second statement cannot hide in them.
 *
 * The READ ONLY transaction and the role's privileges stay the boundary (a SELECT can call any
 * function the role may call); the functions below that act on the server rather than read the
 * mirror are refused here too, so a superuser URL does not run them by accident.
 */
import { readOnlyMessage } from "../read-only.js";

/** Functions that read the server's files, signal its processes or change its state. */
const SERVER_FUNCTIONS = new Set([
  "pg_read_file",
  "pg_read_binary_file",
  "pg_ls_dir",
  "pg_ls_logdir",
  "pg_ls_waldir",
  "pg_ls_tmpdir",
  "pg_ls_archive_statusdir",
  "pg_ls_logicalsnapdir",
  "pg_ls_logicalmapdir",
  "pg_ls_replslotdir",
  "pg_stat_file",
  "pg_terminate_backend",
  "pg_cancel_backend",
  "pg_reload_conf",
  "pg_rotate_logfile",
  "pg_promote",
  "pg_switch_wal",
  "pg_create_restore_point",
  "pg_backup_start",
  "pg_backup_stop",
  "pg_start_backup",
  "pg_stop_backup",
  "pg_logical_emit_message",
  "pg_notify",
  "set_config",
  "lo_import",
  "lo_export",
  "lo_unlink",
  "lo_create",
  "lo_creat",
  "lo_from_bytea",
  "lo_put",
  "lowrite",
  "lo_truncate",
  "query_to_xml",
  "query_to_xmlschema",
  "query_to_xml_and_xmlschema",
  "cursor_to_xml",
  "cursor_to_xmlschema",
]);
const SERVER_FUNCTION_PREFIXES = [
  "dblink",
  "pg_file_",
  "pg_advisory_",
  "pg_try_advisory_",
  "pg_replication_",
];

const DATA_MODIFYING = new Map([
  ["InsertStmt", "INSERT"],
  ["UpdateStmt", "UPDATE"],
  ["DeleteStmt", "DELETE"],
  ["MergeStmt", "MERGE"],
]);

/** A refusal for people; `kind` tells a statement that may not run from SQL that cannot. */
interface Refusal {
  kind: "read-only" | "invalid";
  message: string;
}

type Node = Record<string, unknown>;

let parser: Promise<typeof import("libpg-query")> | undefined;

/** Loads the parser once (its WebAssembly module compiles on first use). */
function loadParser(): Promise<typeof import("libpg-query")> {
  parser ??= import("libpg-query").then(async (m) => {
    await m.loadModule();
    return m;
  });
  return parser;
}

/** Why `sql` may not be sent to the server, or null when it is one statement that only reads. */
export async function statementRefusal(sql: string): Promise<Refusal | null> {
  const { parseSync } = await loadParser();
  let stmts: { stmt?: Node }[];
  try {
    // An empty text is an error to the parser; a text of only comments parses to nothing.
    stmts = sql.trim() === "" ? [] : ((parseSync(sql).stmts ?? []) as { stmt?: Node }[]);
  } catch (err) {
    return { kind: "invalid", message: `query failed: ${oneLine((err as Error).message)}` };
  }
  if (stmts.length === 0)
    return { kind: "invalid", message: "query failed: the SQL text holds no statement" };
  if (stmts.length > 1)
    return {
      kind: "invalid",
      message: "query failed: the SQL text holds more than one statement (run one at a time)",
    };
  const reason = topLevel(stmts[0]?.stmt ?? {}, sql);
  return reason === null ? null : { kind: "read-only", message: reason };
}

function topLevel(stmt: Node, sql: string): string | null {
  const [type, body] = entry(stmt);
  switch (type) {
    case "SelectStmt":
      return inside(body);
    case "VariableShowStmt":
      return null;
    case "ExplainStmt":
      return explain(body as Node, sql);
    case "CopyStmt":
      return "query is read-only: COPY is not allowed: it reads and writes files and programs on the database server (use SELECT with --format csv)";
    case "DoStmt":
    case "CallStmt":
      return `query is read-only: ${type === "DoStmt" ? "DO" : "CALL"} is not allowed: it runs code on the database server (use SELECT)`;
    default:
      return readOnlyMessage(sql, "postgres");
  }
}

/** EXPLAIN plans without running, unless ANALYZE (which runs the statement). */
function explain(body: Node, sql: string): string | null {
  const options = (body.options ?? []) as Node[];
  for (const o of options) {
    const def = o.DefElem as Node | undefined;
    if (def?.defname === "analyze" && !isFalse(def.arg))
      return "query is read-only: EXPLAIN ANALYZE runs the statement (use EXPLAIN without ANALYZE)";
  }
  const [type, query] = entry((body.query ?? {}) as Node);
  if (type === "SelectStmt") return inside(query);
  // The plan of a write is described, not run (as on SQLite); the planner may still evaluate
  // a function call, so the server functions are refused here too.
  if (type !== undefined && DATA_MODIFYING.has(type)) return inside(query, { writes: true });
  return readOnlyMessage(sql, "postgres");
}

/** An option argument that turns it off: false, off, 0. */
function isFalse(arg: unknown): boolean {
  if (arg === undefined) return false;
  const a = arg as Node;
  const b = a.Boolean as Node | undefined;
  if (b !== undefined) return b.boolval !== true;
  const s = (a.String as Node | undefined)?.sval;
  if (typeof s === "string") return ["false", "off", "0", "no"].includes(s.toLowerCase());
  const i = (a.Integer as Node | undefined)?.ival;
  if (a.Integer !== undefined) return i === undefined || i === 0;
  return false;
}

/**
 * Anything anywhere in a SELECT (its CTEs and subqueries) that is not a read; with `writes`
 * (the planned write of an EXPLAIN), only the calls of server functions.
 */
function inside(tree: unknown, opts: { writes?: boolean } = {}): string | null {
  let found: string | null = null;
  const visit = (v: unknown): void => {
    if (found !== null || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    for (const [key, value] of Object.entries(v as Node)) {
      if (found !== null) return;
      const verb = opts.writes ? undefined : DATA_MODIFYING.get(key);
      if (verb !== undefined) {
        found = `query is read-only: a data-modifying WITH (${verb}) is not allowed (use SELECT)`;
        return;
      }
      if (key === "intoClause" && !opts.writes) {
        found = "query is read-only: SELECT ... INTO creates a table (leave out INTO)";
        return;
      }
      if (key === "lockingClause" && !opts.writes) {
        found = "query is read-only: FOR UPDATE/SHARE locks rows that syncs write (leave the clause out)";
        return;
      }
      if (key === "FuncCall") {
        const name = functionName(value as Node);
        if (name !== null && isServerFunction(name)) {
          found = `query is read-only: ${name}() acts on the database server, not on the mirror's data`;
          return;
        }
      }
      visit(value);
    }
  };
  visit(tree);
  return found;
}

function functionName(call: Node): string | null {
  const parts = (call.funcname ?? []) as Node[];
  const last = parts.at(-1)?.String as Node | undefined;
  return typeof last?.sval === "string" ? last.sval.toLowerCase() : null;
}

function isServerFunction(name: string): boolean {
  return SERVER_FUNCTIONS.has(name) || SERVER_FUNCTION_PREFIXES.some((p) => name.startsWith(p));
}

function entry(node: Node): [string | undefined, unknown] {
  const [pair] = Object.entries(node);
  return pair === undefined ? [undefined, undefined] : [pair[0], pair[1]];
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}
