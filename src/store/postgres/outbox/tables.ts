/** The outbox's tables as the PostgreSQL adapter's queries name them. */
import { alias } from "drizzle-orm/pg-core";
import { PARENT } from "../../../schema/outbox-states.js";
import { scenarioRequests, scenarios } from "../../../schema/postgres/index.js";

export const t = scenarioRequests;
/** The parent row, in joins and in the ready condition's subquery. */
export const p = alias(scenarioRequests, PARENT);
export { scenarios };
