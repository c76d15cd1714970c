import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  authFor,
  ConfigError,
  configWarnings,
  formatDuration,
  loadConfig,
  parseConfig,
  parseDuration,
  staleAfterOf,
  syncEveryOf,
  UnsetSecretError,
} from "../../src/config/index.js";
import { Secret } from "../../src/secret.js";

const BASE = "https://tas.example.com/Testinium.RestApi";
const TOKEN_URL = "https://accounts.example.com/oauth/token";
const grant = (over: Record<string, unknown> = {}) => ({
  tokenUrl: TOKEN_URL,
  clientId: "client-id",
  clientSecret: "client-secret-value",
  username: "alice",
  password: "hunter2-password",
  ...over,
});
const minimal = (over: Record<string, unknown> = {}) => ({
  baseUrl: BASE,
  auth: { token: "static-token-value" },
  companies: [{ id: 5251 }],
  ...over,
});

function errorOf(raw: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    parseConfig(raw, "tas.json", env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected the config to be refused");
}

describe("parseConfig", () => {
  it("fills every default from a minimal config", () => {
    const cfg = parseConfig(minimal(), "tas.json", {});
    expect(cfg).toMatchObject({
      baseUrl: BASE,
      allowInsecureHttp: false,
      database: { dialect: "sqlite", path: "./tas.db" },
      redisUrl: "redis://127.0.0.1:6379",
      queuePrefix: "tas",
      http: { timeoutMs: 30_000, maxAttempts: 5, maxRequestsPerSecond: 20, connections: 8 },
      sync: { every: 15 * 60_000, concurrency: 4, staleAfter: null },
      server: { host: "127.0.0.1", port: 9464, dashboardWritable: false, allowUnauthenticated: false },
      shutdownGraceMs: 30_000,
      push: { ratePerSecond: 10, concurrency: 4, maxAttempts: 8 },
      logLevel: "info",
      companies: [{ id: 5251, reportIds: [] }],
    });
    const { auth, source } = authFor(cfg, cfg.companies[0]!);
    expect("token" in auth && auth.token.reveal()).toBe("static-token-value");
    expect(source).toBe("auth");
  });

  it("resolves env:VAR secrets from the environment", () => {
    const env = { TAS_PW: "pw-from-env", TAS_CS: "cs-from-env" };
    const cfg = parseConfig(
      minimal({ auth: grant({ password: "env:TAS_PW", clientSecret: "env:TAS_CS" }) }),
      "tas.json",
      env,
    );
    const auth = cfg.auth!;
    expect("password" in auth && auth.password.reveal()).toBe("pw-from-env");
    expect("clientSecret" in auth && auth.clientSecret.reveal()).toBe("cs-from-env");
  });

  it("lets a company's own auth override the default", () => {
    const cfg = parseConfig(
      minimal({ companies: [{ id: 1 }, { id: 2, auth: { token: "company-two-token" } }] }),
      "tas.json",
      {},
    );
    const { auth: own, source } = authFor(cfg, cfg.companies[1]!);
    expect("token" in own && own.token.reveal()).toBe("company-two-token");
    expect(source).toBe("companies[1].auth");
  });

  it.each([{ url: "http://localhost:8080/R" }, { url: "http://127.0.0.1:9/R" }, { url: "http://[::1]:9/R" }])(
    "allows plain http to loopback $url",
    ({ url }) => {
      expect(parseConfig(minimal({ baseUrl: url }), "tas.json", {}).baseUrl).toBe(url);
    },
  );

  it("allows http to another host only with allowInsecureHttp", () => {
    const cfg = parseConfig(
      minimal({ baseUrl: "http://tas.internal/R", allowInsecureHttp: true }),
      "tas.json",
      {},
    );
    expect(cfg.allowInsecureHttp).toBe(true);
  });
});

describe("schedules and durations", () => {
  it("takes sync.every and a company's own every as durations, in ms", () => {
    const cfg = parseConfig(
      minimal({ sync: { every: "1h30m" }, companies: [{ id: 1 }, { id: 2, every: "30s" }] }),
      "tas.json",
      {},
    );
    expect(cfg.sync.every).toBe(90 * 60_000);
    expect(syncEveryOf(cfg, cfg.companies[0]!)).toBe(90 * 60_000);
    expect(syncEveryOf(cfg, cfg.companies[1]!)).toBe(30_000);
  });

  it("keeps sync.everyMinutes as the old name of sync.every", () => {
    expect(parseConfig(minimal({ sync: { everyMinutes: 5 } }), "tas.json", {}).sync.every).toBe(300_000);
  });

  it("makes a company stale after three of its periods unless sync.staleAfter says otherwise", () => {
    const cfg = parseConfig(minimal({ companies: [{ id: 1, every: "10m" }] }), "tas.json", {});
    expect(staleAfterOf(cfg, cfg.companies[0]!)).toBe(30 * 60_000);
    const own = parseConfig(minimal({ sync: { staleAfter: "2h" } }), "tas.json", {});
    expect(staleAfterOf(own, own.companies[0]!)).toBe(2 * 3_600_000);
  });

  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["15m", 900_000],
    ["1h", 3_600_000],
    ["1h30m", 5_400_000],
    ["2d", 172_800_000],
    ["1.5s", 1500],
  ])("reads the duration %s as %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "15", "m", "15 m", "1x", "-5s", "5s3"])("refuses %j as a duration", (text) => {
    expect(parseDuration(text)).toBeNull();
  });

  it.each([
    [900_000, "15m"],
    [5_400_000, "1h30m"],
    [2500, "2s500ms"],
  ])("writes %i ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe("database", () => {
  it("takes a postgres URL from the environment and masks its password for display", () => {
    const cfg = parseConfig(minimal({ database: "env:TAS_DB" }), "tas.json", {
      TAS_DB: "postgres://tas:pg-secret-pw@db.internal:5432/tas",
    });
    expect(cfg.database.dialect).toBe("postgres");
    expect(cfg.database.display).toBe("postgres://tas:***@db.internal:5432/tas");
    expect(JSON.stringify(cfg)).not.toContain("pg-secret-pw");
  });

  it("takes anything else as a SQLite path", () => {
    expect(parseConfig(minimal({ database: "/var/lib/tas/tas.db" }), "tas.json", {}).database).toMatchObject({
      dialect: "sqlite",
      path: "/var/lib/tas/tas.db",
    });
  });
});

describe("push.ratePerSecond", () => {
  it("takes null as no shared limit", () => {
    expect(
      parseConfig(minimal({ push: { ratePerSecond: null } }), "tas.json", {}).push.ratePerSecond,
    ).toBeNull();
  });
});

describe("parseConfig refusals", () => {
  const cases: {
    name: string;
    raw: unknown;
    env?: NodeJS.ProcessEnv;
    mentions: string[];
    secrets?: string[];
  }[] = [
    {
      name: "a missing env var for the password names the key path and the variable",
      raw: minimal({ auth: grant({ password: "env:TAS_MISSING_PW", clientSecret: "env:TAS_CS" }) }),
      env: { TAS_CS: "cs-from-the-environment" },
      mentions: ["tas.json", "auth.password", "TAS_MISSING_PW"],
      secrets: ["cs-from-the-environment", "alice", "client-id"],
    },
    {
      name: "an env var that is set but empty, saying so",
      raw: minimal({ auth: { token: "env:TAS_EMPTY" } }),
      env: { TAS_EMPTY: "" },
      mentions: ["auth.token", "environment variable TAS_EMPTY is empty"],
    },
    {
      name: "a baseUrl that is not a URL",
      raw: minimal({ baseUrl: "tas.example.com/R" }),
      mentions: ["baseUrl", "expected a URL", "tas.example.com/R"],
    },
    {
      name: "a baseUrl of another scheme",
      raw: minimal({ baseUrl: "ftp://tas.example.com/R" }),
      mentions: ["baseUrl", "expected a http or https URL, got ftp://"],
    },
    {
      name: "a tokenUrl that is not a URL",
      raw: minimal({ auth: grant({ tokenUrl: "accounts/oauth/token" }) }),
      mentions: ["auth.tokenUrl", "expected a URL"],
      secrets: ["hunter2-password", "client-secret-value"],
    },
    {
      name: "a redisUrl that is not a Redis URL, without quoting it (it may hold a password)",
      raw: minimal({ redisUrl: "http://:redis-pass-value@host:6379" }),
      mentions: ["redisUrl", "expected a redis or rediss URL, got http://"],
      secrets: ["redis-pass-value"],
    },
    {
      name: "a webhook URL that is not one, without quoting it",
      raw: minimal({ alerts: { webhookUrl: "hooks.example/T0/secret-hook-token" } }),
      mentions: ["alerts.webhookUrl", "expected a URL"],
      secrets: ["secret-hook-token"],
    },
    {
      name: "a webhook URL from an env var that is not one, without quoting it",
      raw: minimal({ alerts: { webhookUrl: "env:TAS_HOOK" } }),
      env: { TAS_HOOK: "hooks.example/T0/env-hook-token" },
      mentions: ["alerts.webhookUrl", "expected a URL"],
      secrets: ["env-hook-token"],
    },
    {
      name: "a webhook URL from an unset env var, naming the variable",
      raw: minimal({ alerts: { webhookUrl: "env:TAS_NO_HOOK" } }),
      mentions: ["alerts.webhookUrl", "environment variable TAS_NO_HOOK is not set"],
    },
    {
      name: "a duration that is not one",
      raw: minimal({ sync: { every: "15 minutes" } }),
      mentions: ["sync.every", 'expected a duration like "30s", "15m" or "1h", got "15 minutes"'],
    },
    {
      name: "a schedule shorter than a second",
      raw: minimal({ companies: [{ id: 1, every: "500ms" }] }),
      mentions: ["companies[0].every", "at least 1s"],
    },
    {
      name: "sync.every beside its old name sync.everyMinutes",
      raw: minimal({ sync: { every: "5m", everyMinutes: 5 } }),
      mentions: ["sync.everyMinutes", "give only sync.every"],
    },
    {
      name: "a server username without a password",
      raw: minimal({ server: { username: "ops" } }),
      mentions: ["server", "set both server.username and server.password"],
    },
    {
      name: "a company-level env var names the company's key path",
      raw: minimal({ auth: undefined, companies: [{ id: 7, auth: grant({ clientSecret: "env:NOPE_CS" }) }] }),
      mentions: ["companies[0].auth.clientSecret", "NOPE_CS"],
      secrets: ["hunter2-password"],
    },
    {
      name: "http:// to a non-loopback host",
      raw: minimal({ baseUrl: "http://tas.example.com/R" }),
      mentions: ["baseUrl", "allowInsecureHttp"],
      secrets: ["static-token-value"],
    },
    {
      name: "a company without any auth",
      raw: minimal({ auth: undefined }),
      mentions: ["companies[0].auth"],
    },
    {
      name: "duplicate company ids",
      raw: minimal({ companies: [{ id: 3 }, { id: 4 }, { id: 3 }] }),
      mentions: ["companies[2].id", "duplicate company id 3"],
    },
    {
      name: "an unknown top-level key, with the known key it is closest to",
      raw: minimal({ databse: "x.db" }),
      mentions: ['unknown key "databse" (did you mean "database"?)'],
    },
    {
      name: "an unknown key inside http, with the known key it is closest to",
      raw: minimal({ http: { timeoutMS: 5 } }),
      mentions: ['http: unknown key "timeoutMS" (did you mean "timeoutMs"?)'],
    },
    {
      name: "a misspelled company schedule, suggested from a company's own keys",
      raw: minimal({ companies: [{ id: 1 }, { id: 2, evry: "20s" }] }),
      mentions: ['companies[1]: unknown key "evry" (did you mean "every"?)'],
    },
    {
      name: "a misspelled key of the password grant, suggested from that shape's keys",
      raw: minimal({ auth: grant({ scpe: "read" }) }),
      mentions: ['auth: unknown key "scpe" (did you mean "scope"?)'],
      secrets: ["hunter2-password", "client-secret-value"],
    },
    {
      name: "a key nothing resembles, listing the keys allowed there",
      raw: minimal({ alerts: { zzzzzzzz: 1 } }),
      mentions: ['alerts: unknown key "zzzzzzzz" (allowed here: webhookUrl, timeoutMs, allowInsecureHttp)'],
    },
    {
      name: "a wrongly typed number",
      raw: minimal({ http: { timeoutMs: "fast" } }),
      mentions: ["http.timeoutMs"],
    },
    {
      name: "no companies",
      raw: minimal({ companies: [] }),
      mentions: ["companies"],
    },
    {
      name: "a push rate of 0 (null means no limit)",
      raw: minimal({ push: { ratePerSecond: 0 } }),
      mentions: ["push.ratePerSecond"],
    },
  ];

  it.each(cases)("refuses $name", ({ raw, env, mentions, secrets }) => {
    const message = errorOf(raw, env);
    for (const m of mentions) expect(message).toContain(m);
    for (const s of secrets ?? []) expect(message).not.toContain(s);
  });
});

describe("secrets read when used (read-only commands)", () => {
  const raw = minimal({
    auth: grant({ clientSecret: "env:RO_CS", password: "env:RO_PW" }),
    server: { username: "ops", password: "env:RO_SERVER_PW" },
    alerts: { webhookUrl: "env:RO_HOOK" },
  });

  it("loads a config whose env: secrets are unset, and fails only on reveal, naming the variable", () => {
    const cfg = parseConfig(raw, "tas.json", {}, "use");
    const { auth } = authFor(cfg, cfg.companies[0] as NonNullable<(typeof cfg.companies)[0]>);
    if (!("tokenUrl" in auth)) throw new Error("expected the password grant");
    expect(auth.username.reveal()).toBe("alice");
    expect(() => auth.password.reveal()).toThrow(UnsetSecretError);
    expect(() => auth.password.reveal()).toThrow(/environment variable RO_PW is not set/);
    expect(() => cfg.alerts.webhookUrl?.reveal()).toThrow(/RO_HOOK/);
    expect(() => cfg.server.password?.reveal()).toThrow(/RO_SERVER_PW/);
    expect(String(auth.password)).toBe("[redacted]");
  });

  it("still reads a secret that is set, and still refuses what is wrong besides", () => {
    const cfg = parseConfig(
      raw,
      "tas.json",
      { RO_PW: "pw-value", RO_HOOK: "https://hooks.example/x" },
      "use",
    );
    const auth = cfg.auth;
    if (!auth || !("tokenUrl" in auth)) throw new Error("expected the password grant");
    expect(auth.password.reveal()).toBe("pw-value");
    expect(cfg.alerts.webhookUrl?.reveal()).toBe("https://hooks.example/x");
    expect(() => parseConfig({ ...raw, sync: { every: "soon" } }, "tas.json", {}, "use")).toThrow(
      /sync.every/,
    );
  });

  it("refuses the same config at load for a command that talks to the service", () => {
    const message = errorOf(raw);
    for (const name of ["auth.clientSecret", "RO_CS", "auth.password", "RO_PW", "RO_HOOK", "RO_SERVER_PW"])
      expect(message).toContain(name);
  });
});

describe("Secret", () => {
  const secret = new Secret("s3cr3t-value");
  it.each([
    ["String()", () => String(secret)],
    ["template literal", () => `${secret}`],
    ["JSON.stringify", () => JSON.stringify({ password: secret })],
    ["util.inspect", () => inspect({ nested: { secret } }, { depth: 5 })],
  ])("never prints its value through %s", (_name, render) => {
    const text = render();
    expect(text).not.toContain("s3cr3t-value");
    expect(text).toContain("redacted");
  });

  it("gives the value only through reveal()", () => {
    expect(secret.reveal()).toBe("s3cr3t-value");
  });

  it("keeps config secrets out of a printed config", () => {
    const cfg = parseConfig(minimal({ auth: grant() }), "tas.json", {});
    const printed = `${JSON.stringify(cfg)}\n${inspect(cfg, { depth: 10 })}`;
    for (const s of ["client-secret-value", "hunter2-password", "alice", "client-id"])
      expect(printed).not.toContain(s);
  });
});

describe("loadConfig", () => {
  it("says where a JSON syntax error is without quoting the text around it (it may be a secret)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tas-config-"));
    try {
      const path = join(dir, "bad.json");
      writeFileSync(path, '{\n  "baseUrl": "https://x/y",\n  "auth": { "token": sk-live-SECRET }\n}');
      let message = "";
      try {
        loadConfig(path, {});
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toContain(`config ${path} is not valid JSON (syntax error`);
      expect(message).not.toContain("sk-live");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("configWarnings", () => {
  it("warns when the shared push rate is above the per-process request cap, and not otherwise", () => {
    const over = parseConfig(
      minimal({ push: { ratePerSecond: 50 }, http: { maxRequestsPerSecond: 20 } }),
      "tas.json",
      {},
    );
    expect(configWarnings(over)).toEqual([
      "push.ratePerSecond (50) is above http.maxRequestsPerSecond (20): each process sends at most 20 requests per second; raise http.maxRequestsPerSecond to reach 50",
    ]);
    expect(configWarnings(parseConfig(minimal(), "tas.json", {}))).toEqual([]);
    expect(configWarnings(parseConfig(minimal({ push: { ratePerSecond: null } }), "tas.json", {}))).toEqual(
      [],
    );
  });
});

describe("query bounds", () => {
  it("default to a one-minute timeout and 1000 table rows", () => {
    expect(parseConfig(minimal(), "tas.json", {}).query).toEqual({ timeout: 60_000, maxRows: 1000 });
  });

  it("take a duration, or 0 for no timeout", () => {
    expect(parseConfig(minimal({ query: { timeout: "5m", maxRows: 0 } }), "tas.json", {}).query).toEqual({
      timeout: 300_000,
      maxRows: 0,
    });
    expect(parseConfig(minimal({ query: { timeout: "0" } }), "tas.json", {}).query.timeout).toBe(0);
  });

  it.each([
    [{ timeout: "500ms" }, "query.timeout"],
    [{ timeout: "soon" }, "query.timeout"],
    [{ maxRows: -1 }, "query.maxRows"],
  ])("refuse %j, naming the key", (query, key) => {
    expect(errorOf(minimal({ query }))).toContain(key);
  });
});
