/**
 * Secrets out of sight in the config: literal secrets in a file others may read are warned
 * about, `--db env:NAME` is resolved (not taken as a file name), a webhook follows the baseUrl
 * rule for plain http:// and no refusal quotes a password.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ConfigError,
  configSchema,
  databaseFromFlag,
  loadConfig,
  parseConfig,
} from "../../src/config/index.js";
import { literalSecretKeys, secretsWarning } from "../../src/config/literal-secrets.js";
import { UserError } from "../../src/errors.js";
import { Secret } from "../../src/secret.js";

const BASE = "https://tas.example.com/R";
const full = {
  baseUrl: BASE,
  auth: {
    tokenUrl: "https://id.example.com/token",
    clientId: "cid",
    clientSecret: "csecret",
    username: "alice",
    password: "pw",
  },
  companies: [{ id: 1 }, { id: 2, auth: { token: "tok2" } }],
  database: "postgres://tas:dbpw@db.example.com/tas",
  redisUrl: "redis://:redispw@127.0.0.1:6379",
  server: { username: "ops", password: "srvpw" },
  alerts: { webhookUrl: "https://hook:hookpw@hooks.example.com/x" },
};

/** Paths of every value the parsed config holds as a Secret (or a URL with a password). */
function secretPaths(node: unknown, path = ""): string[] {
  if (node instanceof Secret) return [path];
  if (typeof node !== "object" || node === null) return [];
  if ("dialect" in node && "url" in node && node.url instanceof Secret) return [path];
  return Object.entries(node).flatMap(([k, v]) =>
    secretPaths(v, Array.isArray(node) ? `${path}[${k}]` : path ? `${path}.${k}` : k),
  );
}

describe("literalSecretKeys", () => {
  it("names every secret of the parsed config that the file spells out, and nothing else", () => {
    const parsed = parseConfig(full, "tas.json", {});
    const held = secretPaths(parsed).sort();
    // The schema holds database as a target and redisUrl as text: both are URLs with a password here.
    expect(literalSecretKeys(full).sort()).toEqual([...held, "redisUrl"].sort());
    expect(held).toContain("companies[1].auth.token");
  });

  it("does not count env: references, nor URLs without a password", () => {
    const raw = {
      ...full,
      auth: { token: "env:T" },
      companies: [{ id: 1 }],
      database: "postgres://tas@db/tas",
      redisUrl: "env:REDIS",
      server: {},
      alerts: { webhookUrl: "env:HOOK" },
    };
    expect(literalSecretKeys(raw)).toEqual([]);
  });
});

describe("the warning for a config file others may read", () => {
  it.each([
    [0o644, "everyone", "0644"],
    [0o640, "its group", "0640"],
    [0o666, "everyone", "0666"],
  ])("mode %o: readable by %s, one line naming the file, the keys and the fix", (mode, who, octal) => {
    const line = secretsWarning("/etc/tas.json", mode, ["auth.token", "server.password"]);
    expect(line).toBe(
      `config /etc/tas.json is readable by ${who} (mode ${octal}) and holds literal secrets in auth.token, server.password: run chmod 600 /etc/tas.json, or write them as "env:NAME"`,
    );
  });

  it.each([0o600, 0o400, 0o620, 0o700])("mode %o: no warning", (mode) => {
    expect(secretsWarning("/etc/tas.json", mode, ["auth.token"])).toBeNull();
  });

  it("no warning without literal secrets, whatever the mode", () => {
    expect(secretsWarning("/etc/tas.json", 0o666, [])).toBeNull();
  });

  describe.skipIf(process.platform === "win32")("loadConfig on a real file", () => {
    const root = mkdtempSync(join(tmpdir(), "tas-config-mode-"));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    // mkdtemp's directory is the owner's alone (0700): the files need one others may enter.
    const dir = join(root, "shared");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const write = (name: string, raw: unknown, mode: number) => {
      const path = join(dir, name);
      writeFileSync(path, JSON.stringify(raw));
      chmodSync(path, mode);
      return path;
    };
    const token = { baseUrl: BASE, auth: { token: "literal-token-value" }, companies: [{ id: 1 }] };

    it("warns for 0644 with a literal token, never quoting it", () => {
      const path = write("open.json", token, 0o644);
      const warnings: string[] = [];
      loadConfig(path, {}, "load", warnings);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`config ${path} is readable by everyone (mode 0644)`);
      expect(warnings[0]).toContain("auth.token");
      expect(warnings[0]).not.toContain("literal-token-value");
    });

    it("stays quiet for 0644 in a directory only its owner may enter", () => {
      const path = join(root, "private-dir.json");
      writeFileSync(path, JSON.stringify(token));
      chmodSync(path, 0o644);
      const warnings: string[] = [];
      loadConfig(path, {}, "load", warnings);
      expect(warnings).toEqual([]);
    });

    it("stays quiet for 0600, and for 0644 when the secret is env:NAME", () => {
      const closed = write("closed.json", token, 0o600);
      const viaEnv = write("env.json", { ...token, auth: { token: "env:TAS_T" } }, 0o644);
      const warnings: string[] = [];
      loadConfig(closed, {}, "load", warnings);
      loadConfig(viaEnv, { TAS_T: "x" }, "load", warnings);
      expect(warnings).toEqual([]);
    });
  });
});

describe("databaseFromFlag (--db)", () => {
  it("reads env:NAME from the environment instead of taking it for a SQLite file", () => {
    const pg = databaseFromFlag("env:TAS_DB", { TAS_DB: "postgres://u:s3cret@db.example.com/tas" });
    expect(pg.dialect).toBe("postgres");
    expect(pg.display).toBe("postgres://u:***@db.example.com/tas");
    expect(databaseFromFlag("env:TAS_DB", { TAS_DB: "./x.db" })).toMatchObject({
      dialect: "sqlite",
      path: "./x.db",
    });
    expect(databaseFromFlag("./plain.db", {})).toMatchObject({ dialect: "sqlite", path: "./plain.db" });
  });

  it.each([
    [{}, "--db env:TAS_DB: environment variable TAS_DB is not set"],
    [{ TAS_DB: "" }, "--db env:TAS_DB: environment variable TAS_DB is empty"],
    [{ TAS_DB: "postgres://u:s3cret@:x/tas" }, "--db env:TAS_DB: not a valid postgres:// URL"],
  ])("refuses %j in one line that quotes no value", (env, message) => {
    let err: unknown;
    try {
      databaseFromFlag("env:TAS_DB", env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(message);
  });

  it("takes database: env:NAME in the config the same way", () => {
    const cfg = parseConfig(
      { baseUrl: BASE, auth: { token: "t" }, companies: [{ id: 1 }], database: "env:TAS_DB" },
      "tas.json",
      { TAS_DB: "postgres://u:s3cret@db/tas" },
    );
    expect(cfg.database.dialect).toBe("postgres");
  });
});

describe("alerts.webhookUrl and plain http", () => {
  const withHook = (webhookUrl: string, extra: Record<string, unknown> = {}) => ({
    baseUrl: BASE,
    auth: { token: "t" },
    companies: [{ id: 1 }],
    alerts: { webhookUrl, ...extra },
  });

  it.each(["http://127.0.0.1:9/h", "http://localhost/h", "http://[::1]:80/h", "https://hooks.example.com/h"])(
    "accepts %s",
    (hook) => {
      expect(() => parseConfig(withHook(hook), "tas.json", {})).not.toThrow();
    },
  );

  it("refuses http:// to another host in one line naming the key, without the URL's password", () => {
    let message = "";
    try {
      parseConfig(withHook("http://bot:hookpw-SECRET@hooks.internal/T0K3N"), "tas.json", {});
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    expect(message).toContain("alerts.webhookUrl: http:// to a non-loopback host (hooks.internal)");
    expect(message).toContain('"alerts.allowInsecureHttp": true');
    expect(message).not.toMatch(/hookpw|SECRET|T0K3N|bot/);
    expect(message).not.toContain("\n");
  });

  it("allows it with alerts.allowInsecureHttp, and reads the URL from env:NAME the same way", () => {
    const cfg = parseConfig(withHook("http://hooks.internal/h", { allowInsecureHttp: true }), "tas.json", {});
    expect(cfg.alerts.allowInsecureHttp).toBe(true);
    expect(() =>
      parseConfig(withHook("env:HOOK"), "tas.json", { HOOK: "http://u:p@hooks.internal/h" }),
    ).toThrow(/alerts\.webhookUrl: http:\/\/ to a non-loopback host/);
  });

  it("does not check an unset env: webhook of a read-only command", () => {
    expect(() => configSchema({}, "use").parse(withHook("env:HOOK"))).not.toThrow();
  });
});
