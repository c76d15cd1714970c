/**
 * Where each value of a record is observed: its entity and its path inside it. A plan is the
 * entity `plan`; its `period` object, each item of `environments`, `alerts` and
 * `fetch_app_files`, its `resolutions` map and its selected mobile apps are entities of their
 * own, and so are the keys of the JSON document inside a mobile app's `mobile_app_metadata`,
 * per operating system. A report is `scheduled_report`, each of its `alerts` a `report_alert`.
 * Inside an entity, nested objects give dotted paths (`glEsVersion.major`), list items `[]`.
 * Pure: no I/O.
 */
import { readMetadata } from "../normalize/mobile-app.js";

export type RecordKind = "plan" | "scheduled_report";

/**
 * `table[key]` when `key` is the table's own: a key from a record ("constructor", "__proto__",
 * "toString") must not find what every object inherits.
 */
export function own<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}

/** How a key of an entity leads into another entity (the key itself is observed too). */
export type Route =
  | { into: string }
  /** Each item of the list is an instance of the entity. */
  | { items: string }
  /** A mobile app: the entity, and its metadata string read as a JSON document. */
  | { app: string; metadataOs: "ANDROID" | "IOS" };

/** The keys of each entity that lead into another entity. */
export const ROUTES: Record<string, Record<string, Route>> = {
  plan: {
    period: { into: "period" },
    environments: { items: "environment" },
    resolutions: { into: "resolutions" },
    alerts: { items: "plan_alert" },
    fetch_app_files: { items: "fetch_app_file" },
    selected_android_mobile_app: { app: "mobile_app", metadataOs: "ANDROID" },
    selected_ios_mobile_app: { app: "mobile_app", metadataOs: "IOS" },
  },
  scheduled_report: {
    alerts: { items: "report_alert" },
  },
};

/** The entity of the JSON document in mobile_app_metadata, per operating system. */
export const metadataEntity = (os: string) => `mobile_app_metadata:${os}`;

/** Nesting observed inside an entity; deeper values count at the last level as their type. */
export const MAX_DEPTH = 6;
/** Longest key kept in a path (a longer one is cut, never inside a surrogate pair). */
export const MAX_KEY = 100;

/** The metadata's operating system: the app's own `operating_system`, else its slot's. */
export function metadataOs(app: Record<string, unknown>, slot: "ANDROID" | "IOS"): string {
  const os = app.operating_system;
  return typeof os === "string" && os.length > 0 && os.length <= 20 ? os.toUpperCase() : slot;
}

/** The JSON document in a metadata string, or null when it is not a JSON object (read once per text: normalize/). */
export function metadataDocument(value: unknown): Record<string, unknown> | null {
  return typeof value === "string" ? readMetadata(value).doc : null;
}
