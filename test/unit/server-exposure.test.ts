/** assertServerExposure: no unauthenticated metrics or dashboard beyond this machine unless asked. */
import { describe, expect, it } from "vitest";
import type { Config } from "../../src/config/index.js";
import { UserError } from "../../src/errors.js";
import { Secret } from "../../src/secret.js";
import { assertServerExposure, parseBasic, ServerExposureError } from "../../src/server/index.js";

function server(over: Partial<Config["server"]>): Config["server"] {
  return { host: "127.0.0.1", port: 9464, dashboardWritable: false, allowUnauthenticated: false, ...over };
}
const creds = { username: "ops", password: new Secret("s3cret") };

describe("assertServerExposure", () => {
  it.each(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"])(
    "accepts loopback %s without credentials",
    (host) => {
      expect(() => assertServerExposure(server({ host }))).not.toThrow();
    },
  );

  it.each(["0.0.0.0", "::", "10.0.0.5", "metrics.internal"])(
    "refuses %s without credentials, in one line naming the host and the fixes",
    (host) => {
      let err: unknown;
      try {
        assertServerExposure(server({ host }));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ServerExposureError);
      expect(err).toBeInstanceOf(UserError);
      const message = (err as Error).message;
      expect(message).toContain(`server.host ${host} `);
      expect(message).toContain("server.username and server.password");
      expect(message).toContain('"allowUnauthenticated": true');
      expect(message).not.toContain("\n");
    },
  );

  it("accepts a public host with credentials, or with allowUnauthenticated", () => {
    expect(() => assertServerExposure(server({ host: "0.0.0.0", ...creds }))).not.toThrow();
    expect(() => assertServerExposure(server({ host: "0.0.0.0", allowUnauthenticated: true }))).not.toThrow();
  });
});

describe("parseBasic", () => {
  const encode = (s: string) => `Basic ${Buffer.from(s).toString("base64")}`;
  it("splits at the first colon, so a password may hold colons", () => {
    expect(parseBasic(encode("ops:a:b:c"))).toEqual({ username: "ops", password: "a:b:c" });
  });
  it.each([
    ["no header", undefined],
    ["another scheme", "Bearer abc"],
    ["no colon", encode("opsonly")],
    ["not base64", "Basic !!!"],
  ])("gives null for %s", (_, header) => {
    expect(parseBasic(header)).toBeNull();
  });
});
