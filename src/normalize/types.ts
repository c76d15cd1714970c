/** Row shapes produced by the pure normalizers: the relational shape the store writes (schema/). */
import type { PlanRowSet, ReportRowSet } from "../tables/index.js";

export type { PlanColumns, ReportColumns } from "../tables/index.js";
export type NormalizedPlan = PlanRowSet;
export type NormalizedReport = ReportRowSet;
