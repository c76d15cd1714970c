import { describe, expect, it } from "vitest";
import { normalizeMobileApp } from "../../src/normalize/mobile-app.js";
import { normalizePlan } from "../../src/normalize/plan.js";
import { normalizeReport } from "../../src/normalize/report.js";
import { planSchema, scheduledReportSchema, type WirePlan } from "../../src/wire/schemas.js";

/** Fixtures go through the wire schema, so they are shapes the client really hands over. */
const plan = (o: Record<string, unknown>): WirePlan => planSchema.parse({ id: 101, company_id: 5251, ...o });

const DESKTOP = plan({
  project_id: 12,
  plan_name: "Nightly regression",
  group_plan: false,
  description: "",
  enabled: true,
  plan_parallel_test_limit: 4,
  scenarios: [9001, 9002, 9001],
  period: {
    period_type: "REPETITIVE",
    start_date: 1506781800000,
    end_date: 1506807000000,
    days_of_week: "2,3,4,5,6",
    repeat_period: 60,
  },
  alerts: [],
  alerts_enabled: false,
  failed_test_retry_count: 2,
  screen_shot_type: "ONLY_FAILURE",
  video_enabled: true,
  environments: [{ id: 3 }, { id: 5 }],
  performance_data_enabled: false,
  resolutions: { WIN10: "1920x1080", LINUX: "1024x768", MAC: "1440x900" },
});

const ANDROID_APP = {
  id: 71,
  mobile_app_name: "shop-2.4.1.apk",
  mobile_app_hash: "9f86d081884c7d659a2feaa0c55ad015",
  operating_system: "ANDROID",
  mobile_app_metadata: JSON.stringify({
    packageName: "com.example.shop",
    label: "Çağrı'nın Mağazası",
    versionName: "2.4.1",
    versionCode: "241",
    minSdkVersion: "21",
    targetSdkVersion: "33",
  }),
  created_at: "2017-09-30 14:30:00",
};

const IOS_APP = {
  id: 72,
  mobile_app_name: "Shop.ipa",
  mobile_app_hash: "e3b0c44298fc1c149afbf4c8996fb924",
  operating_system: "IOS",
  mobile_app_metadata: JSON.stringify({
    bundleName: "com.example.Shop",
    bundleDisplayName: "Shop",
    bundleVersion: "5.0.2",
    bundleMinOsVersion: "14.0",
    bundlePackageType: "APPL",
  }),
  created_at: "2018-01-02 03:04:05",
};

const MOBILE = plan({
  plan_name: "Mobile smoke",
  period: { period_type: "MANUAL", days_of_week: "" },
  clear_app_data: true,
  fetch_app_files: [{ path: "/sdcard/log.txt" }, "raw-entry"],
  alerts: [{ type: "EMAIL", to: "qa@example.com" }],
  selected_android_mobile_app: ANDROID_APP,
  selected_ios_mobile_app: IOS_APP,
});

describe("normalizePlan: plan columns", () => {
  it("copies a desktop plan's columns and converts period dates to ISO UTC", () => {
    expect(normalizePlan(DESKTOP).plan).toEqual({
      id: 101,
      companyId: 5251,
      projectId: 12,
      planName: "Nightly regression",
      groupPlan: false,
      description: "",
      enabled: true,
      planParallelTestLimit: 4,
      alertsEnabled: false,
      failedTestRetryCount: 2,
      screenShotType: "ONLY_FAILURE",
      videoEnabled: true,
      performanceDataEnabled: false,
      clearAppData: null,
      platform: "desktop",
      periodType: "REPETITIVE",
      periodStartAt: "2017-09-30T14:30:00.000Z",
      periodEndAt: "2017-09-30T21:30:00.000Z",
      periodOnceAt: null,
      periodRepeatMinutes: 60,
      periodDaysOfWeek: "2,3,4,5,6",
    });
  });

  it("sets every absent column to null, never undefined", () => {
    const cols = normalizePlan(plan({})).plan;
    for (const [key, value] of Object.entries(cols)) {
      expect(value, key).not.toBeUndefined();
    }
    expect(cols.description).toBeNull();
    expect(cols.periodType).toBeNull();
  });

  it.each([
    ["no mobile fields", {}, "desktop"],
    ["resolutions only", { resolutions: { XP: "800x600" } }, "desktop"],
    ["mobile fields set to null", { clear_app_data: null, selected_ios_mobile_app: null }, "desktop"],
    ["an android app", { selected_android_mobile_app: ANDROID_APP }, "mobile"],
    ["an ios app", { selected_ios_mobile_app: IOS_APP }, "mobile"],
    ["clear_app_data false", { clear_app_data: false }, "mobile"],
    ["an empty fetch_app_files", { fetch_app_files: [] }, "mobile"],
  ])("classifies a plan with %s as %s", (_label, fields, platform) => {
    expect(normalizePlan(plan(fields)).plan.platform).toBe(platform);
  });

  it.each([
    ["no period at all", undefined],
    ["a period without dates", { period_type: "MANUAL" }],
    ["null dates", { period_type: "MANUAL", start_date: null, end_date: null, once_date: null }],
  ])("leaves period dates null for %s", (_label, period) => {
    const cols = normalizePlan(plan({ period })).plan;
    expect([cols.periodStartAt, cols.periodEndAt, cols.periodOnceAt]).toEqual([null, null, null]);
  });

  it("converts once_date of a ONCE plan", () => {
    const cols = normalizePlan(plan({ period: { period_type: "ONCE", once_date: 1506807000000 } })).plan;
    expect(cols.periodOnceAt).toBe("2017-09-30T21:30:00.000Z");
  });

  it("keeps unknown enum values as they come", () => {
    const cols = normalizePlan(
      plan({ screen_shot_type: "ON_STEP", period: { period_type: "CRON_LIKE", days_of_week: "9" } }),
    ).plan;
    expect([cols.screenShotType, cols.periodType, cols.periodDaysOfWeek]).toEqual([
      "ON_STEP",
      "CRON_LIKE",
      "9",
    ]);
  });
});

describe("normalizePlan: child rows", () => {
  it.each([
    ["an empty days_of_week", "", []],
    ["a missing days_of_week", undefined, []],
    ["every day listed Monday first", "2,3,4,5,6,7,1", [1, 2, 3, 4, 5, 6, 7]],
    ["duplicates and junk", "6, 6,x,,8,1", [1, 6]],
  ])("gives day rows for %s", (_label, days_of_week, numbers) => {
    const n = normalizePlan(plan({ period: { period_type: "REPETITIVE", days_of_week } }));
    expect(n.days.map((d) => d.dayNumber)).toEqual(numbers);
    expect(n.days.every((d) => d.planId === 101)).toBe(true);
    expect(n.plan.periodDaysOfWeek).toBe(days_of_week ?? null);
  });

  it("names days from the Java Calendar convention", () => {
    const n = normalizePlan(plan({ period: { days_of_week: "1,2,7" } }));
    expect(n.days).toEqual([
      { planId: 101, dayNumber: 1, dayName: "SUNDAY" },
      { planId: 101, dayNumber: 2, dayName: "MONDAY" },
      { planId: 101, dayNumber: 7, dayName: "SATURDAY" },
    ]);
  });

  it("gives one resolution row per OS, sorted by OS, with width and height", () => {
    expect(normalizePlan(DESKTOP).resolutions).toEqual([
      { planId: 101, os: "LINUX", resolution: "1024x768", width: 1024, height: 768 },
      { planId: 101, os: "MAC", resolution: "1440x900", width: 1440, height: 900 },
      { planId: 101, os: "WIN10", resolution: "1920x1080", width: 1920, height: 1080 },
    ]);
  });

  it("keeps a bad resolution string with null width and height", () => {
    const n = normalizePlan(plan({ resolutions: { WIN8_1: "full screen", VISTA: "1024 x 768" } }));
    expect(n.resolutions).toEqual([
      { planId: 101, os: "VISTA", resolution: "1024 x 768", width: 1024, height: 768 },
      { planId: 101, os: "WIN8_1", resolution: "full screen", width: null, height: null },
    ]);
  });

  it('collapses {"id":7} sixteen times into one environment row with 16 occurrences', () => {
    const n = normalizePlan(plan({ environments: Array.from({ length: 16 }, () => ({ id: 7 })) }));
    expect(n.environments).toEqual([{ planId: 101, environmentId: 7, occurrences: 16 }]);
  });

  it.each([
    ["few", [5, 3, 5, 9, 3, 5]],
    ["many (more than the linear-scan limit)", [...Array.from({ length: 40 }, (_, i) => i % 20), 5, 3, 5]],
  ])("counts %s environments in order of first appearance", (_label, ids) => {
    const n = normalizePlan(plan({ environments: ids.map((id) => ({ id })) }));
    const expected = new Map<number, number>();
    for (const id of ids) expected.set(id, (expected.get(id) ?? 0) + 1);
    expect(n.environments).toEqual(
      [...expected].map(([environmentId, occurrences]) => ({ planId: 101, environmentId, occurrences })),
    );
  });

  it("keeps duplicate scenarios as separate 0-based positions", () => {
    expect(normalizePlan(DESKTOP).scenarios).toEqual([
      { planId: 101, scenarioId: 9001, position: 0 },
      { planId: 101, scenarioId: 9002, position: 1 },
      { planId: 101, scenarioId: 9001, position: 2 },
    ]);
  });

  it("stores alerts and fetch_app_files items as JSON text by position", () => {
    const n = normalizePlan(MOBILE);
    expect(n.alerts).toEqual([{ planId: 101, position: 0, json: '{"type":"EMAIL","to":"qa@example.com"}' }]);
    expect(n.fetchAppFiles).toEqual([
      { planId: 101, position: 0, json: '{"path":"/sdcard/log.txt"}' },
      { planId: 101, position: 1, json: '"raw-entry"' },
    ]);
  });

  it("gives empty child lists for a plan that has none", () => {
    const n = normalizePlan(plan({}));
    expect([n.days, n.resolutions, n.environments, n.scenarios, n.alerts, n.fetchAppFiles]).toEqual([
      [],
      [],
      [],
      [],
      [],
      [],
    ]);
    expect([n.mobileApps, n.planMobileApps]).toEqual([[], []]);
  });
});

describe("normalizePlan: mobile apps", () => {
  it("normalizes both apps of a mobile plan and links them by slot", () => {
    const n = normalizePlan(MOBILE);
    expect(n.plan.platform).toBe("mobile");
    expect(n.plan.clearAppData).toBe(true);
    expect(n.planMobileApps).toEqual([
      { planId: 101, operatingSystem: "ANDROID", mobileAppId: 71 },
      { planId: 101, operatingSystem: "IOS", mobileAppId: 72 },
    ]);
    expect(n.mobileApps).toEqual([
      {
        id: 71,
        operatingSystem: "ANDROID",
        mobileAppName: "shop-2.4.1.apk",
        mobileAppHash: "9f86d081884c7d659a2feaa0c55ad015",
        createdAt: "2017-09-30T14:30:00.000Z",
        metadataJson: ANDROID_APP.mobile_app_metadata,
        metadataError: null,
        metadataRepaired: false,
        appId: "com.example.shop",
        displayName: "Çağrı'nın Mağazası",
        versionName: "2.4.1",
        versionCode: 241,
        minOsVersion: "21",
        targetSdkVersion: "33",
      },
      {
        id: 72,
        operatingSystem: "IOS",
        mobileAppName: "Shop.ipa",
        mobileAppHash: "e3b0c44298fc1c149afbf4c8996fb924",
        createdAt: "2018-01-02T03:04:05.000Z",
        metadataJson: IOS_APP.mobile_app_metadata,
        metadataError: null,
        metadataRepaired: false,
        appId: "com.example.Shop",
        displayName: "Shop",
        versionName: "5.0.2",
        versionCode: null,
        minOsVersion: "14.0",
        targetSdkVersion: null,
      },
    ]);
  });

  it("reads the service's \\' escape in metadata, keeps the text as received and flags it repaired", () => {
    const raw = String.raw`{"packageName":"com.example.shop","label":"Ahmet\'s App","versionName":"2.5"}`;
    const n = normalizePlan(
      plan({ selected_android_mobile_app: { ...ANDROID_APP, mobile_app_metadata: raw } }),
    );
    const [app] = n.mobileApps;
    expect(app).toMatchObject({
      metadataJson: raw,
      metadataError: null,
      metadataRepaired: true,
      appId: "com.example.shop",
      displayName: "Ahmet's App",
      versionName: "2.5",
    });
  });

  it("still normalizes the plan when an app's metadata does not parse, keeping it raw and flagged", () => {
    const raw = String.raw`{"packageName":"com.example.shop","label":"Ahmet\'s App\x"}`;
    const n = normalizePlan(
      plan({ selected_android_mobile_app: { ...ANDROID_APP, mobile_app_metadata: raw } }),
    );
    expect(n.plan.platform).toBe("mobile");
    expect(n.planMobileApps).toEqual([{ planId: 101, operatingSystem: "ANDROID", mobileAppId: 71 }]);
    const [app] = n.mobileApps;
    expect(app?.metadataJson).toBe(raw);
    expect(app?.metadataError).toMatch(/^invalid JSON: /);
    expect(app?.metadataRepaired).toBe(false);
    expect(app?.appId).toBeNull();
    expect(app?.mobileAppName).toBe("shop-2.4.1.apk");
  });

  it("uses the slot, not the record's operating_system, for the link", () => {
    const mislabeled = { ...IOS_APP, operating_system: "ANDROID" };
    const n = normalizePlan(plan({ selected_ios_mobile_app: mislabeled }));
    expect(n.planMobileApps).toEqual([{ planId: 101, operatingSystem: "IOS", mobileAppId: 72 }]);
    expect(n.mobileApps[0]?.operatingSystem).toBe("ANDROID");
  });

  it("reads metadata with either key set when the record's operating_system is missing", () => {
    const { operating_system: _omit, ...noOs } = IOS_APP;
    const n = normalizePlan(plan({ selected_ios_mobile_app: noOs }));
    expect(n.mobileApps[0]?.operatingSystem).toBeNull();
    expect(n.mobileApps[0]?.appId).toBe("com.example.Shop");
  });

  it("lists an app used in both slots once but links it twice", () => {
    const n = normalizePlan(
      plan({ selected_android_mobile_app: ANDROID_APP, selected_ios_mobile_app: ANDROID_APP }),
    );
    expect(n.mobileApps.map((a) => a.id)).toEqual([71]);
    expect(n.planMobileApps.map((l) => l.operatingSystem)).toEqual(["ANDROID", "IOS"]);
  });

  it("keeps an app whose created_at has another format, with createdAt null", () => {
    expect(normalizeMobileApp({ ...ANDROID_APP, created_at: "30.09.2017 14:30" }).createdAt).toBeNull();
  });
});

const REPORT = scheduledReportSchema.parse({
  id: 132,
  report_name: "Daily QA digest",
  content_mail: "<p>Hello</p>",
  user_roles: ["ROLE_REPORT", "ROLE_ADMIN", "ROLE_REPORT"],
  enabled: true,
  frequency: "FORTNIGHTLY",
  created_user: "ayse",
  status: ["SUCCESS", "SUCCESS"],
  usage_gauge: false,
  report_hour: "2025-02-06T12:51:07Z",
  plan_id_list: [101, 999, 101, 102],
  start_date: "2025-02-06T00:00:00+03:00",
  end_date: "soon",
  email_list: ["a@example.com", "b@example.com", "a@example.com"],
  alerts: [
    {
      alert_type: "EMAIL",
      alert_sending_status: "EVERY_TEST",
      target: "qa@example.com",
      enabled: true,
      unsubscribe_link_eliminated: false,
    },
    { alert_type: "SLACK" },
  ],
});

describe("normalizeReport", () => {
  it("fills the report columns with the given company and ISO UTC times", () => {
    expect(normalizeReport(REPORT, 5251).report).toEqual({
      id: 132,
      companyId: 5251,
      reportName: "Daily QA digest",
      contentMail: "<p>Hello</p>",
      enabled: true,
      frequency: "FORTNIGHTLY",
      createdUser: "ayse",
      usageGauge: false,
      reportHour: "2025-02-06T12:51:07.000Z",
      startDate: "2025-02-05T21:00:00.000Z",
      endDate: "soon",
    });
  });

  it.each([
    ["planIds", [101, 999, 102]],
    ["recipients", ["a@example.com", "b@example.com"]],
    ["userRoles", ["ROLE_REPORT", "ROLE_ADMIN"]],
    ["statuses", ["SUCCESS"]],
  ] as const)("de-duplicates %s in order of first appearance", (key, expected) => {
    expect(normalizeReport(REPORT, 5251)[key]).toEqual(expected);
  });

  it("gives alert rows by position with absent fields as null", () => {
    expect(normalizeReport(REPORT, 5251).alerts).toEqual([
      {
        reportId: 132,
        position: 0,
        alertType: "EMAIL",
        alertSendingStatus: "EVERY_TEST",
        target: "qa@example.com",
        enabled: true,
        unsubscribeLinkEliminated: false,
      },
      {
        reportId: 132,
        position: 1,
        alertType: "SLACK",
        alertSendingStatus: null,
        target: null,
        enabled: null,
        unsubscribeLinkEliminated: null,
      },
    ]);
  });

  it("gives empty lists and null columns for a bare report", () => {
    const n = normalizeReport({ id: 1 }, 7);
    expect(n.report.reportHour).toBeNull();
    expect(n.report.reportName).toBeNull();
    expect([n.planIds, n.recipients, n.userRoles, n.statuses, n.alerts]).toEqual([[], [], [], [], []]);
  });
});
