/**
 * fast-check arbitraries of hostile service records: mostly the wire shape (seed 2.2, 2.3),
 * with wrong types, missing and extra fields, odd strings and numbers, nested garbage. Each
 * field is usually right, so that whole records are accepted often enough to test that path too.
 */
import fc from "fast-check";

/** Strings a Java service, a proxy or an attacker might send. */
export const weirdString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    "__proto__",
    "constructor",
    "toString",
    "\u0000",
    "\ud800",
    "Çağrı'nın Mağazası",
    "<html><body>502 Bad Gateway</body></html>",
    "2025-02-06T12:51:07Z",
    "2025-02-30T25:61:61+99:99",
    "1024x768",
    "99999999999x99999999999",
    "1,2,3,4,5,6,7,8,0,-1,x",
    "{'label': 'it\\'s'}",
    '{"packageName":"a","versionCode":"12"}',
    "[]",
    "null",
    "x".repeat(5000),
  ),
);

/** Numbers at the edges: huge, fractional, negative, -0, past safe integers. */
export const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 0.5, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1e21, 1e308, -1e308, 5e-324),
);

/** Objects whose own keys shadow Object.prototype, as JSON.parse makes them. */
const prototypeKeys = fc
  .constantFrom(
    '{"toString": 1}',
    '{"valueOf": {}, "toString": null}',
    '{"__proto__": {"id": 1, "polluted": true}}',
    '{"constructor": {"prototype": {"x": 1}}}',
    '{"hasOwnProperty": "no"}',
  )
  .map((text) => JSON.parse(text) as unknown);

/** Any JSON value, kept small. */
export const garbage: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3, depthSize: "small" }),
  prototypeKeys,
  weirdString,
  weirdNumber,
  fc.constant(null),
);

/**
 * One-key objects whose key is a name every JavaScript object has ("__proto__", "constructor",
 * "prototype"), as JSON.parse makes them: own keys, the value a string or anything at all.
 */
const reservedKeyMap: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.constantFrom("__proto__", "constructor", "prototype"),
    fc.oneof(fc.string({ maxLength: 12 }), garbage),
  )
  .map(
    ([key, value]) => JSON.parse(`{${JSON.stringify(key)}: ${JSON.stringify(value) ?? "null"}}`) as unknown,
  );

/** Usually `right`, sometimes null, sometimes anything at all. */
function mostly<T>(right: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 24, arbitrary: right },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: garbage },
  );
}

const int = fc.oneof({ weight: 15, arbitrary: fc.integer({ min: 0, max: 2 ** 31 }) }, weirdNumber);
const text = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 20 }) }, weirdString);
const epochMs = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }) },
  weirdNumber,
);
const small = <T>(a: fc.Arbitrary<T>) => fc.array(a, { maxLength: 6 });

/** Optional fields: any subset of the model's keys is present. */
const someOf = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }) => fc.record(model, { requiredKeys: [] });

/** Extra fields the contract does not name, merged into a record. */
const extras = fc.dictionary(weirdString, garbage, { maxKeys: 3 });

const withExtras = (base: fc.Arbitrary<Record<string, unknown>>) =>
  fc.tuple(base, extras).map(([b, e]) => ({ ...e, ...b }));

const mobileApp = withExtras(
  fc
    .tuple(
      fc.record({ id: mostly(int) }),
      someOf({
        mobile_app_name: mostly(text),
        mobile_app_hash: mostly(text),
        operating_system: mostly(fc.oneof(fc.constantFrom("ANDROID", "IOS", "WINDOWS"), text)),
        mobile_app_metadata: mostly(weirdString),
        created_at: mostly(fc.oneof(fc.constant("2017-09-30 14:30:00"), text)),
      }),
    )
    .map(([a, b]) => ({ ...a, ...b })),
);

const period = withExtras(
  someOf({
    period_type: mostly(fc.oneof(fc.constantFrom("MANUAL", "ONCE", "REPETITIVE"), text)),
    start_date: mostly(epochMs),
    end_date: mostly(epochMs),
    once_date: mostly(epochMs),
    days_of_week: mostly(fc.oneof(fc.constantFrom("2,3,4,5,6", "", "2,3,4,5,6,7,1"), text)),
    repeat_period: mostly(int),
  }),
);

/** A plan-shaped JSON value (GET /api/plans element). */
export const planLike: fc.Arbitrary<Record<string, unknown>> = withExtras(
  fc
    .tuple(
      fc.record({ id: mostly(int), company_id: mostly(int) }, { requiredKeys: [] }),
      someOf({
        project_id: mostly(int),
        plan_name: mostly(text),
        group_plan: mostly(fc.boolean()),
        description: mostly(text),
        enabled: mostly(fc.boolean()),
        plan_parallel_test_limit: mostly(int),
        scenarios: mostly(small(int)),
        period: mostly(period),
        alerts: mostly(small(garbage)),
        alerts_enabled: mostly(fc.boolean()),
        failed_test_retry_count: mostly(int),
        screen_shot_type: mostly(text),
        video_enabled: mostly(fc.boolean()),
        environments: mostly(small(fc.record({ id: mostly(int) }))),
        performance_data_enabled: mostly(fc.boolean()),
        resolutions: mostly(
          fc.oneof(
            {
              weight: 4,
              arbitrary: fc.dictionary(weirdString, fc.oneof(text, fc.constant("1920x1080")), { maxKeys: 4 }),
            },
            { weight: 1, arbitrary: reservedKeyMap },
          ),
        ),
        clear_app_data: mostly(fc.boolean()),
        fetch_app_files: mostly(small(garbage)),
        selected_android_mobile_app: mostly(mobileApp),
        selected_ios_mobile_app: mostly(mobileApp),
      }),
    )
    .map(([a, b]) => ({ ...a, ...b })),
);

const reportAlert = withExtras(
  someOf({
    alert_type: mostly(text),
    alert_sending_status: mostly(text),
    target: mostly(text),
    enabled: mostly(fc.boolean()),
    unsubscribe_link_eliminated: mostly(fc.boolean()),
  }),
);

const isoish = fc.oneof(
  fc.constant("2025-02-06T12:51:07Z"),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  text,
);

/** A scheduled-report-shaped JSON value (GET /api/scheduled-reports/scheduled/{id}). */
export const reportLike: fc.Arbitrary<Record<string, unknown>> = withExtras(
  fc
    .tuple(
      fc.record({ id: mostly(int) }, { requiredKeys: [] }),
      someOf({
        report_name: mostly(text),
        content_mail: mostly(text),
        user_roles: mostly(small(text)),
        enabled: mostly(fc.boolean()),
        frequency: mostly(fc.oneof(fc.constantFrom("DAILY", "WEEKLY"), text)),
        created_user: mostly(text),
        status: mostly(small(text)),
        usage_gauge: mostly(fc.boolean()),
        report_hour: mostly(isoish),
        plan_id_list: mostly(small(int)),
        start_date: mostly(isoish),
        end_date: mostly(isoish),
        email_list: mostly(small(text)),
        alerts: mostly(small(reportAlert)),
      }),
    )
    .map(([a, b]) => ({ ...a, ...b })),
);

/**
 * JSON text of a record: usually the value serialized, sometimes damaged the way a body can
 * be (cut short, numbers JSON.stringify never writes, a BOM, trailing garbage).
 */
export function recordText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  const json = value.map((v) => JSON.stringify(v) ?? "null");
  return fc.oneof(
    { weight: 8, arbitrary: json },
    { weight: 1, arbitrary: fc.tuple(json, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(json, fc.constantFrom("1e400", "-1e400", "123456789012345678901234567890", "-0.0", "1E-400"))
        .map(([t, n]) => t.replace(/(:)-?\d+(\.\d+)?([eE][-+]?\d+)?/, `$1${n}`)),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("\ufeff", " ", "]", "x"), json).map(([p, t]) => p + t) },
    { weight: 1, arbitrary: fc.tuple(json, weirdString).map(([t, s]) => t + s) },
  );
}
