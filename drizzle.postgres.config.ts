import { defineConfig } from "drizzle-kit";

/** PostgreSQL: the same tables and views as SQLite's (drizzle.config.ts), in pg-core types. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/tables/postgres/index.ts",
  out: "./migrations/postgres",
});
