/** The outbox's tables as the PostgreSQL adapter's queries name them. */
import { type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { PARENT } from "../../../tables/outbox-states.js";
import { scenarioRequests, scenarios } from "../../../tables/postgres/index.js";

export const t = scenarioRequests;
/** The parent row, in joins and in the ready condition's subquery. */
export const p = alias(scenarioRequests, PARENT);
export { scenarios };

/**
 * Rows whose key is in the array given as the placeholder `keys`: one parameter however many
 * keys (drizzle's inArray takes one per key, and a statement takes at most 65,535).
 */
export const keyInArray: SQL = sql`${scenarioRequests.key} = any(${sql.placeholder("keys")}::text[])`;
