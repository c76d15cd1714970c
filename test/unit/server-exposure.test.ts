/** assertServerExposure: no unauthenticated metrics or dashboard beyond this machine unless asked. */
import { describe, expect, it } from "vitest";
import type { Config } from "../../src/config/index.js";
import { UserError } from "../../src/errors.js";
import { Secret } from "../../src/secret.js";
import { hostOf, servedHosts } from "../../src/server/host-check.js";
import { assertServerExposure, parseBasic, ServerExposureError } from "../../src/server/index.js";

function server(over: Partial<Config["server"]>): Config["server"] {
  return {
    host: "127.0.0.1",
    port: 9464,
    dashboardWritable: false,
    allowUnauthenticated: false,
    allowedHosts: [],
    ...over,
  };
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

describe("a writable dashboard without credentials off loopback", () => {
  it.each(["0.0.0.0", "::", "10.0.0.5"])("refuses %s in one line naming the keys", (host) => {
    let err: unknown;
    try {
      assertServerExposure(server({ host, allowUnauthenticated: true, dashboardWritable: true }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServerExposureError);
    expect((err as UserError).exitCode).toBe(2);
    expect((err as Error).message).toBe(
      `server.dashboardWritable with server.allowUnauthenticated on server.host ${host} would let anyone who reaches it retry, promote and remove push jobs: set server.username and server.password, set server.dashboardWritable to false, or set server.host to 127.0.0.1`,
    );
  });

  it("starts writable on loopback, or with credentials, or read-only", () => {
    const writable = { dashboardWritable: true, allowUnauthenticated: true };
    expect(() => assertServerExposure(server({ ...writable, host: "127.0.0.1" }))).not.toThrow();
    expect(() => assertServerExposure(server({ ...writable, host: "0.0.0.0", ...creds }))).not.toThrow();
    expect(() =>
      assertServerExposure(server({ host: "0.0.0.0", allowUnauthenticated: true, dashboardWritable: false })),
    ).not.toThrow();
  });
});

describe("servedHosts and hostOf", () => {
  it.each([
    ["127.0.0.1:9464", "127.0.0.1"],
    ["[::1]:9464", "::1"],
    ["[::1]", "::1"],
    ["Tas.Internal.", "tas.internal"],
    ["tas.internal:80", "tas.internal"],
  ])("reads the host of %s as %s", (header, host) => {
    expect(hostOf(header)).toBe(host);
  });

  it("serves the bound address, the loopback names and the allowed names", () => {
    const served = servedHosts("10.0.0.5", ["Tas.Internal"], () => ["10.9.9.9"]);
    expect([...served].sort()).toEqual(["10.0.0.5", "127.0.0.1", "::1", "localhost", "tas.internal"]);
  });

  it("serves this machine's addresses when bound to a wildcard address, and no other name", () => {
    for (const bound of ["0.0.0.0", "::"]) {
      const served = servedHosts(bound, [], () => ["10.0.0.5", "fe80::1"]);
      expect(served.has("10.0.0.5")).toBe(true);
      expect(served.has("fe80::1")).toBe(true);
      expect(served.has("0.0.0.0")).toBe(false);
      expect(served.has("evil.example")).toBe(false);
    }
  });
});
