import { describe, expect, it } from "vitest";
import { parseDaysOfWeek } from "../../src/normalize/days.js";
import { parseMobileMetadata } from "../../src/normalize/mobile-app.js";
import { parseResolution } from "../../src/normalize/resolution.js";
import { epochMsToIso, isoToUtc, mobileCreatedAtToIso } from "../../src/normalize/time.js";

describe("epochMsToIso", () => {
  it.each([
    [1506781800000, "2017-09-30T14:30:00.000Z"],
    [1506807000000, "2017-09-30T21:30:00.000Z"],
    [0, "1970-01-01T00:00:00.000Z"],
    [1506781800123, "2017-09-30T14:30:00.123Z"],
    [-86_400_000, "1969-12-31T00:00:00.000Z"],
    [253_402_300_799_999, "9999-12-31T23:59:59.999Z"],
  ])("turns epoch milliseconds %s into %s", (ms, iso) => {
    expect(epochMsToIso(ms)).toBe(iso);
  });

  it("agrees with Date#toISOString across years 0000..9999, leap days and negative epochs", () => {
    const from = -62_167_219_200_000;
    const to = 253_402_300_799_999;
    const step = 9_999_999_937; // odd stride, not a multiple of a second: mixes every field
    const mismatches: number[] = [];
    for (let ms = from; ms <= to; ms += step) {
      if (epochMsToIso(ms) !== new Date(ms).toISOString()) mismatches.push(ms);
    }
    for (const ms of [951_782_400_000, 951_868_799_999, -1, -0.5, 1506781800000.9, from, to]) {
      if (epochMsToIso(ms) !== new Date(ms).toISOString()) mismatches.push(ms);
    }
    expect(mismatches).toEqual([]);
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a year past 9999", 253_402_300_800_000],
    ["beyond the Date range", 8.64e15 + 1],
  ])("gives null for %s", (_label, ms) => {
    expect(epochMsToIso(ms)).toBeNull();
  });
});

describe("isoToUtc", () => {
  it.each([
    ["2025-02-06T12:51:07Z", "2025-02-06T12:51:07.000Z"],
    ["2025-02-06T12:51:07.5Z", "2025-02-06T12:51:07.500Z"],
    ["2025-02-06T12:51:07.123456Z", "2025-02-06T12:51:07.123Z"],
    ["2025-02-06T12:51:07.000Z", "2025-02-06T12:51:07.000Z"],
    ["2025-02-06T15:51:07+03:00", "2025-02-06T12:51:07.000Z"],
    ["2025-02-06T00:30:00-0100", "2025-02-06T01:30:00.000Z"],
    ["2025-02-06T00:30:00+01", "2025-02-05T23:30:00.000Z"],
    ["2025-02-06T12:51:07", "2025-02-06T12:51:07.000Z"],
    ["2025-02-06T12:51", "2025-02-06T12:51:00.000Z"],
    ["2025-02-06", "2025-02-06T00:00:00.000Z"],
    ["2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z"],
  ])("normalizes %s to %s", (input, expected) => {
    expect(isoToUtc(input)).toBe(expected);
  });

  it.each([
    "not a date",
    "",
    "06/02/2025",
    "2025-13-01T00:00:00Z",
    "2025-02-30T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2025-02-06T24:00:00Z",
    "2025-02-06T12:51:07+25:00",
    "Thu, 06 Feb 2025 12:51:07 GMT",
  ])("returns %j unchanged when it is not a valid ISO date-time", (input) => {
    expect(isoToUtc(input)).toBe(input);
  });

  it("keeps null as null", () => {
    expect(isoToUtc(null)).toBeNull();
    expect(isoToUtc(undefined)).toBeNull();
  });
});

describe("mobileCreatedAtToIso", () => {
  it.each([
    ["2017-09-30 14:30:00", "2017-09-30T14:30:00.000Z"],
    ["2024-02-29 23:59:59", "2024-02-29T23:59:59.000Z"],
  ])("reads %s as UTC", (input, expected) => {
    expect(mobileCreatedAtToIso(input)).toBe(expected);
  });

  it.each([
    null,
    undefined,
    "",
    "2017-09-30T14:30:00",
    "2017-09-30 14:30",
    "2017-09-30 14:30:00.0",
    " 2017-09-30 14:30:00",
    "2017-9-30 14:30:00",
    "2017-02-30 14:30:00",
    "2017-09-30 24:00:00",
  ])("gives null for %j", (input) => {
    expect(mobileCreatedAtToIso(input)).toBeNull();
  });
});

const SUN_TO_SAT = ["SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY"];

describe("parseDaysOfWeek", () => {
  it.each([
    ["every day, Monday first", "2,3,4,5,6,7,1", [1, 2, 3, 4, 5, 6, 7]],
    ["weekdays", "2,3,4,5,6", [2, 3, 4, 5, 6]],
    ["an empty string", "", []],
    ["null", null, []],
    ["whitespace and empty tokens", " 7 , ,1,, ", [1, 7]],
    ["duplicates", "3,3,2,3", [2, 3]],
    ["out-of-range and non-integer tokens", "0,8,1.5,-1,x,4,+5,1e0", [4]],
  ])("parses %s", (_label, input, numbers) => {
    expect(parseDaysOfWeek(input)).toEqual(
      numbers.map((n) => ({ dayNumber: n, dayName: SUN_TO_SAT[n - 1] })),
    );
  });

  it("uses the Java Calendar convention: 1 is SUNDAY, 7 is SATURDAY", () => {
    expect(parseDaysOfWeek("1,7")).toEqual([
      { dayNumber: 1, dayName: "SUNDAY" },
      { dayNumber: 7, dayName: "SATURDAY" },
    ]);
  });
});

describe("parseResolution", () => {
  it.each([
    ["1024x768", 1024, 768],
    ["1920X1080", 1920, 1080],
    ["1024 x 768", 1024, 768],
    [" 800x600 ", 800, 600],
  ])("reads %j", (input, width, height) => {
    expect(parseResolution(input)).toEqual({ width, height });
  });

  it.each(["", "1024", "1024x", "x768", "1024*768", "1024x768x32", "wide", "-1x768", "10.5x7"])(
    "gives nulls for %j",
    (input) => {
      expect(parseResolution(input)).toEqual({ width: null, height: null });
    },
  );
});

const ANDROID_META = JSON.stringify({
  packageName: "com.example.shop",
  label: "Çağrı'nın Mağazası",
  icon: "res/mipmap/ic_launcher.png",
  versionName: "2.4.1",
  versionCode: 241,
  minSdkVersion: "21",
  targetSdkVersion: "33",
  glEsVersion: { major: 2, minor: 0, required: true },
});

const IOS_META = JSON.stringify({
  bundleName: "com.example.Shop",
  bundleDisplayName: "Şöförün Dükkânı",
  bundleVersion: "5.0.2",
  bundleMinOsVersion: "14.0",
  bundleDevelopmentRegion: "tr",
  bundleExecutable: "Shop",
  bundleIconFiles: ["AppIcon60x60"],
  bundleInfoDictVersion: "6.0",
  bundlePackageType: "APPL",
  bundleMainStoryBoardFile: "Main",
});

describe("parseMobileMetadata", () => {
  it("reads the ANDROID keys, including a non-ASCII label with an apostrophe", () => {
    expect(parseMobileMetadata("ANDROID", ANDROID_META)).toEqual({
      metadataJson: ANDROID_META,
      metadataError: null,
      metadataRepaired: false,
      appId: "com.example.shop",
      displayName: "Çağrı'nın Mağazası",
      versionName: "2.4.1",
      versionCode: 241,
      minOsVersion: "21",
      targetSdkVersion: "33",
    });
  });

  it("reads the IOS keys and leaves versionCode and targetSdkVersion null", () => {
    expect(parseMobileMetadata("IOS", IOS_META)).toEqual({
      metadataJson: IOS_META,
      metadataError: null,
      metadataRepaired: false,
      appId: "com.example.Shop",
      displayName: "Şöförün Dükkânı",
      versionName: "5.0.2",
      versionCode: null,
      minOsVersion: "14.0",
      targetSdkVersion: null,
    });
  });

  it.each([
    ["unknown OS with ANDROID keys", "WINDOWS_PHONE", ANDROID_META, "com.example.shop", 241],
    ["missing OS with IOS keys", null, IOS_META, "com.example.Shop", null],
  ])("tries both key sets for %s", (_label, os, raw, appId, versionCode) => {
    const m = parseMobileMetadata(os, raw);
    expect(m.appId).toBe(appId);
    expect(m.versionCode).toBe(versionCode);
    expect(m.metadataError).toBeNull();
  });

  it.each([
    ["a numeric string", "241", 241],
    ["a padded numeric string", " 7 ", 7],
    ["a fraction", 2.5, null],
    ["a non-numeric string", "v241", null],
    ["a boolean", true, null],
  ])("reads versionCode given as %s", (_label, versionCode, expected) => {
    const raw = JSON.stringify({ packageName: "p", versionCode });
    expect(parseMobileMetadata("ANDROID", raw).versionCode).toBe(expected);
  });

  it("turns numbers in string fields into text and drops other non-strings", () => {
    const raw = JSON.stringify({ packageName: { x: 1 }, label: null, versionName: 3, minSdkVersion: 21 });
    const m = parseMobileMetadata("ANDROID", raw);
    expect([m.appId, m.displayName, m.versionName, m.minOsVersion]).toEqual([null, null, "3", "21"]);
  });

  it("reads a metadata string escaped with \\', keeps it as received and flags it repaired", () => {
    const raw = String.raw`{"packageName":"com.example.shop","label":"Ahmet\'s App","versionCode":3}`;
    const m = parseMobileMetadata("ANDROID", raw);
    expect(m.metadataJson).toBe(raw);
    expect(m.metadataError).toBeNull();
    expect(m.metadataRepaired).toBe(true);
    expect([m.appId, m.displayName, m.versionCode]).toEqual(["com.example.shop", "Ahmet's App", 3]);
  });

  it("keeps any other unparsable metadata raw, flags it and does not throw", () => {
    const raw = String.raw`{"packageName":"com.example.shop","label":"Ahmet\x27s App","versionCode":3}`;
    const m = parseMobileMetadata("ANDROID", raw);
    expect(m.metadataJson).toBe(raw);
    expect(m.metadataError).toMatch(/^invalid JSON: /);
    expect(m.metadataRepaired).toBe(false);
    expect([m.appId, m.displayName, m.versionCode]).toEqual([null, null, null]);
  });

  it.each([
    ["an array", "[1,2]", "array"],
    ["null", "null", "null"],
    ["a number", "42", "number"],
    ["a string", '"text"', "string"],
  ])("flags metadata that is %s instead of an object", (_label, raw, kind) => {
    const m = parseMobileMetadata("IOS", raw);
    expect(m.metadataJson).toBe(raw);
    expect(m.metadataError).toBe(`metadata is not a JSON object (got ${kind})`);
    expect(m.appId).toBeNull();
  });

  it("gives all nulls and no error when there is no metadata", () => {
    const { metadataRepaired, ...rest } = parseMobileMetadata("ANDROID", null);
    expect(metadataRepaired).toBe(false);
    expect(Object.values(rest).every((v) => v === null)).toBe(true);
  });
});
