/**
 * The reference pages generated from the code (`npm run docs` writes them; a unit test fails
 * when one on disk differs): commands from the catalog, configuration from the zod schema,
 * tables from the drizzle schemas.
 */
import { commandsPage } from "./commands-page.js";
import { configPage } from "./config-page.js";
import { tablesPage } from "./tables-page.js";

export interface Page {
  /** Relative to the repository's root. */
  path: string;
  text: string;
}

export function referencePages(): Page[] {
  return [
    { path: "docs/reference/commands.md", text: commandsPage() },
    { path: "docs/reference/configuration.md", text: configPage() },
    { path: "docs/reference/tables.md", text: tablesPage() },
  ];
}
