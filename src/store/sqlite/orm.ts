/** drizzle on a SQLite connection: one per connection (its prepared queries are too). */
import { drizzle } from "drizzle-orm/better-sqlite3";
import type { Sqlite } from "./connection.js";
import { perConnection } from "./prepared.js";

export function orm(sqlite: Sqlite) {
  return perConnection(sqlite, "drizzle", () => drizzle(sqlite));
}
