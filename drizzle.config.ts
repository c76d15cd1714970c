import { defineConfig } from "drizzle-kit";

/** SQLite (the default store). PostgreSQL has its own config: drizzle.postgres.config.ts. */
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/tables/sqlite/index.ts",
  out: "./migrations/sqlite",
});
