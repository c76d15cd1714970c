/** Where the committed migrations of a dialect are, from src/ (tests) or dist/src/ (built). */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreError } from "./errors.js";

export function migrationsFolder(dialect: "sqlite" | "postgres"): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const folder = join(dir, "migrations", dialect);
    if (existsSync(join(folder, "meta", "_journal.json"))) return folder;
    dir = dirname(dir);
  }
  throw new StoreError(`cannot find the migrations/${dialect} folder of tas-sync`);
}
