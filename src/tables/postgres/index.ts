/** The PostgreSQL tables and views of the mirror (drizzle-kit reads this file: drizzle.postgres.config.ts). */

export * from "./changes.js";
export * from "./history.js";
export * from "./observed.js";
export * from "./plans.js";
export * from "./push.js";
export * from "./reports.js";
export * from "./runs.js";
export * from "./views.js";
