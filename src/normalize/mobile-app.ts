/** Mobile app records (seed 2.3.2) and the JSON document inside `mobile_app_metadata`. */

import type { MobileAppRow } from "../tables/index.js";
import type { WireMobileApp } from "../wire/schemas.js";
import { truncate } from "./text.js";
import { mobileCreatedAtToIso } from "./time.js";

export interface MobileMetadata {
  /** The metadata string exactly as received, kept even when it does not parse. */
  metadataJson: string | null;
  /** Why the metadata could not be read; null when it parsed (or was absent). */
  metadataError: string | null;
  /** It parsed only once its `\'` escapes were read as `'` (repairMetadata). */
  metadataRepaired: boolean;
  appId: string | null;
  displayName: string | null;
  versionName: string | null;
  versionCode: number | null;
  minOsVersion: string | null;
  targetSdkVersion: string | null;
}

type Json = Record<string, unknown>;

const MAX_ERROR_LENGTH = 200;
const INTEGER_STRING = /^\s*-?\d{1,15}\s*$/;

function emptyMetadata(raw: string | null, error: string | null, repaired = false): MobileMetadata {
  return {
    metadataJson: raw,
    metadataError: error,
    metadataRepaired: repaired,
    appId: null,
    displayName: null,
    versionName: null,
    versionCode: null,
    minOsVersion: null,
    targetSdkVersion: null,
  };
}

/** A string field: strings as they are, finite numbers as text, anything else null. */
function str(v: unknown): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return null;
}

/** An integer field: integers, or strings holding one; anything else null. */
function int(v: unknown): number | null {
  if (typeof v === "number") return Number.isSafeInteger(v) ? v : null;
  if (typeof v === "string" && INTEGER_STRING.test(v)) return Number(v);
  return null;
}

function firstStr(o: Json, a: string, b: string): string | null {
  return str(o[a]) ?? str(o[b]);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  return Array.isArray(v) ? "array" : typeof v;
}

function readAndroid(o: Json, m: MobileMetadata): void {
  m.appId = str(o.packageName);
  m.displayName = str(o.label);
  m.versionName = str(o.versionName);
  m.versionCode = int(o.versionCode);
  m.minOsVersion = str(o.minSdkVersion);
  m.targetSdkVersion = str(o.targetSdkVersion);
}

function readIos(o: Json, m: MobileMetadata): void {
  m.appId = str(o.bundleName);
  m.displayName = str(o.bundleDisplayName);
  m.versionName = str(o.bundleVersion);
  m.minOsVersion = str(o.bundleMinOsVersion);
}

/** OS not ANDROID nor IOS: take whichever key set the document uses (ANDROID keys first). */
function readEither(o: Json, m: MobileMetadata): void {
  m.appId = firstStr(o, "packageName", "bundleName");
  m.displayName = firstStr(o, "label", "bundleDisplayName");
  m.versionName = firstStr(o, "versionName", "bundleVersion");
  m.versionCode = int(o.versionCode);
  m.minOsVersion = firstStr(o, "minSdkVersion", "bundleMinOsVersion");
  m.targetSdkVersion = str(o.targetSdkVersion);
}

/**
 * What a metadata string holds: its JSON object (`repaired` when it needed repairMetadata), or
 * why it holds none.
 */
export type MetadataRead = { doc: Json; error: null; repaired: boolean } | { doc: null; error: string };

/**
 * The metadata text with the service's one known quirk read: inside a JSON string, `\'` (its
 * documented examples escape an apostrophe so, which JSON does not allow) becomes `'`. Every
 * other escape is kept as it is, and a `\'` outside a string is left for JSON.parse to refuse.
 * Null when there is nothing to repair.
 */
export function repairMetadata(raw: string): string | null {
  if (!raw.includes("\\'")) return null;
  let out = "";
  let from = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x22) inString = !inString;
    else if (c === 0x5c && inString) {
      if (raw.charCodeAt(i + 1) === 0x27) {
        out += raw.slice(from, i);
        from = i + 1;
      }
      i++; // the escaped character is never a quote that ends the string
    }
  }
  return from === 0 ? null : out + raw.slice(from);
}

/**
 * Metadata strings read lately, by their text: an app is shared by many plans, each plan
 * carries its metadata string again, and the schema observer walks the same document. The
 * documents are only read, never changed, so they can be shared. Long strings are not kept.
 */
const recent = new Map<string, MetadataRead>();
const RECENT = 512;
const RECENT_MAX_LENGTH = 16 * 1024;

/** The JSON object in a metadata string, or why there is none. */
export function readMetadata(raw: string): MetadataRead {
  const hit = recent.get(raw);
  if (hit) return hit;
  const read = readUncached(raw);
  if (raw.length <= RECENT_MAX_LENGTH) {
    if (recent.size >= RECENT) recent.clear();
    recent.set(raw, read);
  }
  return read;
}

function readUncached(raw: string): MetadataRead {
  let doc: unknown;
  let repaired = false;
  try {
    doc = JSON.parse(raw);
  } catch (err) {
    const fixed = repairMetadata(raw);
    try {
      if (fixed === null) throw err;
      doc = JSON.parse(fixed);
      repaired = true;
    } catch {
      // The error of the text as received: the repair explains nothing when it does not help.
      const message = err instanceof Error ? err.message : String(err);
      // The engine's message quotes the offending UTF-16 unit, which can be half a pair.
      return { doc: null, error: truncate(`invalid JSON: ${message}`, MAX_ERROR_LENGTH).toWellFormed() };
    }
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return { doc: null, error: `metadata is not a JSON object (got ${describe(doc)})` };
  return { doc: doc as Json, error: null, repaired };
}

/**
 * Typed fields of a mobile app's metadata string. Never throws: a string that is not a
 * JSON object is kept raw in metadataJson and explained in metadataError.
 */
export function parseMobileMetadata(
  os: string | null | undefined,
  raw: string | null | undefined,
): MobileMetadata {
  if (typeof raw !== "string") return emptyMetadata(null, null);
  const read = readMetadata(raw);
  if (!read.doc) return emptyMetadata(raw, read.error);
  const doc = read.doc;
  const m = emptyMetadata(raw, null, read.repaired);
  const kind = typeof os === "string" ? os.toUpperCase() : "";
  if (kind === "ANDROID") readAndroid(doc, m);
  else if (kind === "IOS") readIos(doc, m);
  else readEither(doc, m);
  return m;
}

/** A mobile_apps row; the metadata key set follows the record's own operating_system. */
export function normalizeMobileApp(app: WireMobileApp): MobileAppRow {
  const meta = parseMobileMetadata(app.operating_system, app.mobile_app_metadata);
  return {
    id: app.id,
    operatingSystem: app.operating_system ?? null,
    mobileAppName: app.mobile_app_name ?? null,
    mobileAppHash: app.mobile_app_hash ?? null,
    createdAt: mobileCreatedAtToIso(app.created_at),
    metadataJson: meta.metadataJson,
    metadataError: meta.metadataError,
    metadataRepaired: meta.metadataRepaired,
    appId: meta.appId,
    displayName: meta.displayName,
    versionName: meta.versionName,
    versionCode: meta.versionCode,
    minOsVersion: meta.minOsVersion,
    targetSdkVersion: meta.targetSdkVersion,
  };
}
