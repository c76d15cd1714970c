/** docs/reference/tables.md: every table, view and column of both stores, from the drizzle schemas. */
import { TABLE_DOCS, type TableDoc, VIEW_DOCS } from "../tables/descriptions.js";
import { type ColumnShape, type Relation, relationsOf } from "../tables/relations.js";
import { generatedNotice, table } from "./markdown.js";

export { relationsOf };

/** How a type reads in the page: SQLite's, and PostgreSQL's short name. */
function typeText(lite: ColumnShape | undefined, post: ColumnShape | undefined): [string, string] {
  const pgType = (post?.type ?? "?").replace("timestamp(3) with time zone", "timestamptz");
  let liteType = (lite?.type ?? "?").toUpperCase();
  if (pgType === "boolean") liteType = "INTEGER 0/1";
  if (pgType === "timestamptz") liteType = "TEXT (time)";
  const key = (c: ColumnShape | undefined) => (c?.primary ? " PK" : "");
  const identity = post?.identity ? " (identity)" : "";
  return [`${liteType}${key(lite)}`, `${pgType}${key(post)}${identity}`];
}

function section(
  name: string,
  doc: TableDoc,
  lite: Relation | undefined,
  post: Relation | undefined,
): string {
  const names = (lite ?? post)?.columns.map((c) => c.name) ?? [];
  const rows = names.map((column) => {
    const [l, p] = typeText(
      lite?.columns.find((c) => c.name === column),
      post?.columns.find((c) => c.name === column),
    );
    return [`\`${column}\``, l, p, doc.columns[column] ?? ""];
  });
  const pk = lite?.primaryKey.length
    ? `\n\nPrimary key: (${lite.primaryKey.map((c) => `\`${c}\``).join(", ")}).`
    : "";
  const notes = doc.notes ? `\n\n${doc.notes}` : "";
  return `### ${name}\n\n${doc.summary}\n\n${table(["Column", "SQLite", "PostgreSQL", "Holds"], rows)}${pk}${notes}`;
}

export function tablesPage(): string {
  const lite = relationsOf("sqlite");
  const post = relationsOf("postgres");
  const find = (list: Relation[], name: string) => list.find((r) => r.name === name);
  const tables = Object.entries(TABLE_DOCS).map(([name, doc]) =>
    section(name, doc, find(lite, name), find(post, name)),
  );
  const views = Object.entries(VIEW_DOCS).map(([name, doc]) =>
    section(name, doc, find(lite, name), find(post, name)),
  );
  return `${generatedNotice("the drizzle schemas (src/tables/sqlite, src/tables/postgres) and src/tables/descriptions.ts")}

# Table reference

The tables and views of the mirror and the push outbox: the same names and columns in SQLite
and PostgreSQL. Conventions (timestamps, flags, soft deletion, hashes) and example queries:
[../queries.md](../queries.md).

## Tables

${Object.keys(TABLE_DOCS)
  .map((n) => `[\`${n}\`](#${n})`)
  .join(" · ")}

${tables.join("\n\n")}

## Views

${views.join("\n\n")}

The applied migrations are recorded in \`__drizzle_migrations\` (SQLite) and
\`drizzle.__drizzle_migrations\` (PostgreSQL).
`;
}
