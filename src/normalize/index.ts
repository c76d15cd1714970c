/** Pure normalizers: wire objects (api/schemas) to row objects (store/schema). No I/O, no clock. */
export { DAY_NAMES, type DayOfWeek, daysOfWeekMask, parseDaysOfWeek } from "./days.js";
export {
  type MobileMetadata,
  normalizeMobileApp,
  parseMobileMetadata,
  readMetadata,
} from "./mobile-app.js";
export { normalizePlan } from "./plan.js";
export { type PlanRead, type RecordRead, type ReportRead, readPlan, readReport } from "./read.js";
export { idOf, type ParsedJson, parseJson } from "./record.js";
export { normalizeReport } from "./report.js";
export { parseResolution, type Resolution } from "./resolution.js";
export { epochMsToIso, isoToUtc, mobileCreatedAtToIso } from "./time.js";
export type { NormalizedPlan, NormalizedReport, PlanColumns, ReportColumns } from "./types.js";
export { checkPlan, checkReport } from "./validate.js";
