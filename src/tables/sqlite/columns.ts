import { integer } from "drizzle-orm/sqlite-core";

/** Booleans are stored as 0/1 integers. */
export const bool = (name: string) => integer(name, { mode: "boolean" });
