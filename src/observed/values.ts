/**
 * Which paths keep their string values, and which raise value changes (new_value, value_gone):
 * drift is the service sending a new value of an enumeration, not a plan renamed. Pure data and
 * rules; docs/schema.md says them for people.
 *
 * - `enum`: the documented enumerations (the contract names a value or two of each and says
 *   "not shown" for the rest). Values kept; a new value, or one no record holds any more, is a
 *   change.
 * - `free`: every other documented string (names, descriptions, e-mail addresses, ids, hashes,
 *   dates, versions, the metadata string), and an undocumented key whose name says it is one
 *   (`…name`, `…email`, `…id`, `target`, …). Values never kept, never a change.
 * - `watch`: any other undocumented path. Values kept (to schema.valueCap); a change only while
 *   they stay few (fewValues): a new field that turns out to be free text falls silent.
 */
import { DOCUMENTED } from "./documented.js";

export type ValuePolicy = "enum" | "free" | "watch";

/** The documented enumerations, by entity. */
const ENUM_PATHS: Readonly<Record<string, readonly string[]>> = {
  plan: ["screen_shot_type"],
  period: ["period_type"],
  mobile_app: ["operating_system"],
  scheduled_report: ["frequency", "status[]", "user_roles[]"],
  report_alert: ["alert_type", "alert_sending_status"],
};

/** Last words of an undocumented key that name free text or an identifier (`owner_email`, `buildHash`). */
const FREE_WORDS = new Set([
  "id",
  "ids",
  "uuid",
  "key",
  "name",
  "names",
  "title",
  "label",
  "description",
  "comment",
  "note",
  "notes",
  "message",
  "text",
  "body",
  "html",
  "mail",
  "email",
  "emails",
  "target",
  "recipient",
  "recipients",
  "user",
  "owner",
  "hash",
  "checksum",
  "token",
  "url",
  "uri",
  "link",
  "path",
  "file",
  "icon",
  "date",
  "time",
  "at",
  "version",
  "metadata",
]);

/** At most this many distinct values, each held on average by FEW_REPEAT records, for a watched path's values to speak. */
const FEW_VALUES = 20;
const FEW_REPEAT = 3;

/** The last word of a path's last key: `glEsVersion.major` -> `major`, `ownerEmail[]` -> `email`. */
function lastWord(path: string): string {
  const key = path.replace(/\[\]$/, "").split(".").pop() ?? "";
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  return words.at(-1) ?? "";
}

const policies = new Map<string, ValuePolicy>();

/** How the values of a path are kept and whether they raise changes. */
export function valuePolicy(entity: string, path: string): ValuePolicy {
  const key = `${entity}\u0000${path}`;
  let p = policies.get(key);
  if (p === undefined) {
    p = policyOf(entity, path);
    if (policies.size < 10_000) policies.set(key, p);
  }
  return p;
}

function policyOf(entity: string, path: string): ValuePolicy {
  if (ENUM_PATHS[entity]?.includes(path)) return "enum";
  const doc = DOCUMENTED[entity];
  if (doc && path in doc) return "free";
  // An app's metadata describes the app (its versions, SDK levels, names), not the service.
  if (entity.startsWith("mobile_app_metadata:")) return "free";
  return FREE_WORDS.has(lastWord(path)) ? "free" : "watch";
}

/** Whether a watched path's values are few enough to be an enumeration. */
export function fewValues(p: {
  valuesCapped: boolean;
  values: readonly unknown[];
  types: { string: number };
}): boolean {
  return !p.valuesCapped && p.values.length <= FEW_VALUES && p.types.string >= FEW_REPEAT * p.values.length;
}
