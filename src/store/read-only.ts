/**
 * Which statements `query` runs: reads only. better-sqlite3 tells from the compiled statement
 * (`reader`: it returns rows; `readonly`: it writes nothing), which no parsing of the text could
 * do as well; the text is only read to name the statement in the message.
 */

/** The first word of the statement, upper-cased, after blanks and comments ("" if none). */
export function firstKeyword(sql: string): string {
  const rest = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*/, "");
  return /^[A-Za-z]+/.exec(rest)?.[0].toUpperCase() ?? "";
}

const READ_KEYWORDS = new Set(["SELECT", "WITH", "PRAGMA", "VALUES", "EXPLAIN"]);
const WRITE_VERB = /\b(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * Why the statement may not run, or null when it only reads. EXPLAIN of a write is allowed:
 * it describes the statement without running it.
 */
export function readOnlyRefusal(sql: string, stmt: { reader: boolean; readonly: boolean }): string | null {
  const keyword = firstKeyword(sql);
  if (stmt.reader && (stmt.readonly || keyword === "EXPLAIN")) return null;
  return readOnlyMessage(sql);
}

/** The statements `query` runs, per store, as the refusals name them. */
const READS = {
  sqlite: "(use SELECT, WITH or PRAGMA)",
  postgres: "(use SELECT, WITH, VALUES, TABLE, EXPLAIN or SHOW)",
};

/** The plain-words refusal of a statement that writes (or returns no rows). */
export function readOnlyMessage(sql: string, dialect: keyof typeof READS = "sqlite"): string {
  const keyword = firstKeyword(sql);
  const hint = READS[dialect];
  if (keyword === "PRAGMA" && dialect === "sqlite")
    return "query is read-only: a PRAGMA that sets a value is not allowed (read it with PRAGMA name)";
  if (keyword === "WITH") {
    const verb = WRITE_VERB.exec(sql)?.[1]?.toUpperCase();
    if (verb) return `query is read-only: ${verb} statements are not allowed ${hint}`;
  }
  if (keyword === "" || READ_KEYWORDS.has(keyword))
    return `query is read-only: this statement writes to the database ${hint}`;
  return `query is read-only: ${keyword} statements are not allowed ${hint}`;
}
