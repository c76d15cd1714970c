import { describe, expect, it } from "vitest";
import {
  AccessDeniedError,
  ApiError,
  ConnectionError,
  errorFromResponse,
  InvalidCredentialsError,
  InvalidRequestError,
  InvalidScenarioNameError,
  isUnreachable,
  NotFoundError,
  type Operation,
  ProjectNotFoundError,
  parseErrorBody,
  parseRetryAfter,
  RateLimitedError,
  ServerError,
  TimeoutError,
  transportError,
  UnauthorizedError,
  ValidationFailedError,
  withDetail,
} from "../../src/api/errors.js";
import { proxyFor, proxySettings } from "../../src/api/proxy.js";

const json = (o: unknown) => JSON.stringify(o);
const PROXY_HTML =
  "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>";

const msg = (error: string, message: string) => json({ error, message });
const desc = (error: string, description: string) => json({ error, error_description: description });
const [C, R, L, T] = ["createScenario", "getScheduledReport", "listPlans", "token"] as const;

type Case = [Operation, number, string, new (...args: never[]) => ApiError, string];

describe("errorFromResponse", () => {
  const cases: Case[] = [
    // operation, status, body -> class, code
    [C, 404, msg("PROJECT_NOT_FOUND", "no such project"), ProjectNotFoundError, "PROJECT_NOT_FOUND"],
    [R, 404, msg("NOT_FOUND", "Report 9 not found"), NotFoundError, "NOT_FOUND"],
    [R, 404, "", NotFoundError, "NOT_FOUND"],
    [C, 400, msg("INVALID_SCENARIO_NAME", "exists"), InvalidScenarioNameError, "INVALID_SCENARIO_NAME"],
    [R, 400, msg("INVALID_REQUEST", "bad id"), InvalidRequestError, "INVALID_REQUEST"],
    [C, 401, msg("UNAUTHORIZED_USER", "who?"), UnauthorizedError, "UNAUTHORIZED_USER"],
    [L, 401, msg("Unauthorized", "Full authentication is required"), UnauthorizedError, "UNAUTHORIZED"],
    [L, 401, desc("invalid_token", "Access token expired"), UnauthorizedError, "INVALID_TOKEN"],
    [L, 401, "", UnauthorizedError, "UNAUTHORIZED"],
    [T, 401, desc("INVALID_CLIENT", "Bad credentials"), InvalidCredentialsError, "INVALID_CLIENT"],
    [T, 400, desc("invalid_grant", "Bad credentials"), InvalidCredentialsError, "INVALID_GRANT"],
    [R, 403, msg("ACCESS_DENIED", "Access is denied"), AccessDeniedError, "ACCESS_DENIED"],
    [C, 422, json({ message: "Validation Failed" }), ValidationFailedError, "VALIDATION_FAILED"],
    [L, 500, msg("Internal Server Error", "boom"), ServerError, "INTERNAL_SERVER_ERROR"],
    [R, 500, json({ error: "INTERNAL_SERVER_ERROR" }), ServerError, "INTERNAL_SERVER_ERROR"],
    [L, 502, PROXY_HTML, ServerError, "INTERNAL_SERVER_ERROR"],
    [L, 503, "}{ not json at all", ServerError, "INTERNAL_SERVER_ERROR"],
    [L, 500, "{ broken json", ServerError, "INTERNAL_SERVER_ERROR"],
    [L, 500, json({ error: 42, message: ["x"] }), ServerError, "INTERNAL_SERVER_ERROR"],
    [L, 429, msg("TOO_MANY_REQUESTS", "slow down"), RateLimitedError, "TOO_MANY_REQUESTS"],
    [L, 418, "", ApiError, "HTTP_418"],
  ];

  it.each(cases)("%s HTTP %i %s -> %o", (op, status, body, cls, code) => {
    const err = errorFromResponse(op, status, body);
    expect(err).toBeInstanceOf(cls);
    expect(err.constructor).toBe(cls);
    expect(err.code).toBe(code);
    expect(err.status).toBe(status);
    expect(err.operation).toBe(op);
    expect(err.message).toContain(`${op}: HTTP ${status} ${code}`);
  });

  it.each<[string, string, string | undefined]>([
    ["message", msg("E", "the message"), "the message"],
    ["error_description", desc("E", "the description"), "the description"],
    ["an empty body", "", undefined],
    ["proxy HTML, tags stripped", PROXY_HTML, "502 Bad Gateway Bad Gateway"],
    ["garbage, as is", "}{ not json", "}{ not json"],
    ["non-string fields", json({ error: 42, message: ["x"] }), undefined],
  ])("takes the detail from %s", (_from, body, detail) => {
    const err = errorFromResponse(L, 500, body);
    expect(err.detail).toBe(detail);
    if (detail) expect(err.message).toContain(`: ${detail}`);
  });

  it("tells a missing project apart from a missing report", () => {
    const project = errorFromResponse("createScenario", 404, json({ error: "PROJECT_NOT_FOUND" }));
    const report = errorFromResponse("getScheduledReport", 404, json({ error: "NOT_FOUND" }));
    expect(project).toBeInstanceOf(ProjectNotFoundError);
    expect(report).toBeInstanceOf(NotFoundError);
    expect(report).not.toBeInstanceOf(ProjectNotFoundError);
  });

  it("treats a 401 from the token endpoint as refused credentials, elsewhere as a refused token", () => {
    expect(errorFromResponse("token", 401, "")).toBeInstanceOf(InvalidCredentialsError);
    expect(errorFromResponse("token", 401, "")).not.toBeInstanceOf(UnauthorizedError);
    expect(errorFromResponse("listPlans", 401, "")).toBeInstanceOf(UnauthorizedError);
  });

  it("keeps the Retry-After wait on a 429", () => {
    const err = errorFromResponse("listPlans", 429, json({ error: "TOO_MANY_REQUESTS" }), 2500);
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(2500);
    expect((errorFromResponse("listPlans", 429, "") as RateLimitedError).retryAfterMs).toBeNull();
  });

  it("shortens a huge HTML body to one line", () => {
    const err = errorFromResponse("listPlans", 502, `<html><body>${"x ".repeat(1000)}</body></html>`);
    expect(err.detail!.length).toBeLessThanOrEqual(160);
    expect(err.message).not.toContain("\n");
  });

  it.each<[string, ApiError, boolean, boolean]>([
    ["500", errorFromResponse("createScenario", 500, ""), true, true],
    ["429", errorFromResponse("createScenario", 429, "", null), true, false],
    ["404", errorFromResponse("createScenario", 404, ""), false, false],
    ["400", errorFromResponse("createScenario", 400, ""), false, false],
    ["401", errorFromResponse("createScenario", 401, ""), false, false],
    ["403", errorFromResponse("getScheduledReport", 403, ""), false, false],
    ["timeout", transportError("createScenario", { code: "UND_ERR_HEADERS_TIMEOUT" }), true, true],
    ["reset", transportError("createScenario", { code: "ECONNRESET" }), true, true],
    ["refused", transportError("createScenario", { code: "ECONNREFUSED" }), true, false],
    ["nested cause", transportError("createScenario", { cause: { code: "ENOTFOUND" } }), true, false],
  ])("flags %s: retryable=%s, outcomeUnknown=%s", (_name, err, retryable, unknown) => {
    expect(err.retryable).toBe(retryable);
    expect(err.outcomeUnknown).toBe(unknown);
  });

  it.each<[string, unknown, boolean]>([
    ["refused", { code: "ECONNREFUSED" }, true],
    ["unknown host", { cause: { code: "ENOTFOUND" } }, true],
    ["no DNS answer", { code: "EAI_AGAIN" }, true],
    ["no route to host", { code: "EHOSTUNREACH" }, true],
    ["https to a plain-HTTP port", { code: "ERR_SSL_WRONG_VERSION_NUMBER" }, true],
    ["a self-signed certificate", { code: "DEPTH_ZERO_SELF_SIGNED_CERT" }, true],
    ["a certificate for another name", { code: "ERR_TLS_CERT_ALTNAME_INVALID" }, true],
    ["an unverifiable chain", { code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" }, true],
    ["a reset", { code: "ECONNRESET" }, false],
    ["a connect timeout", { code: "UND_ERR_CONNECT_TIMEOUT" }, false],
    ["a headers timeout", { code: "UND_ERR_HEADERS_TIMEOUT" }, false],
  ])("says whether %s is unreachable (failed at once, nothing sent)", (_name, cause, unreachable) => {
    const err = transportError("listPlans", cause);
    expect(isUnreachable(err)).toBe(unreachable);
    if (unreachable) expect(err.outcomeUnknown).toBe(false);
  });

  it("names a TLS failure as such, with host and port", () => {
    const err = transportError(
      "listPlans",
      { code: "CERT_HAS_EXPIRED" },
      { url: new URL("https://tas.example.com/R/api/plans") },
    );
    expect(err.message).toBe("listPlans TLS_FAILED: TLS with tas.example.com:443 failed (CERT_HAS_EXPIRED)");
    expect(err.retryable).toBe(true);
  });

  it("keeps what a connection error and a 429 know when more is said (withDetail)", () => {
    const refused = withDetail(transportError("listPlans", { code: "ECONNREFUSED" }), "check baseUrl");
    expect(refused).toBeInstanceOf(ConnectionError);
    expect(isUnreachable(refused)).toBe(true);
    expect(refused.message).toBe("listPlans CONNECTION_FAILED: ECONNREFUSED; check baseUrl");
    const reset = withDetail(transportError("createScenario", { code: "ECONNRESET" }), "more");
    expect(reset.outcomeUnknown).toBe(true);
    const limited = withDetail(errorFromResponse("listPlans", 429, "", 1500), "more") as RateLimitedError;
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect(limited.retryAfterMs).toBe(1500);
  });

  it("maps socket errors to TimeoutError and ConnectionError", () => {
    expect(transportError("listPlans", { code: "UND_ERR_BODY_TIMEOUT" })).toBeInstanceOf(TimeoutError);
    const reset = transportError(
      "listPlans",
      Object.assign(new Error("other side closed"), { code: "ECONNRESET" }),
    );
    expect(reset).toBeInstanceOf(ConnectionError);
    expect(reset.code).toBe("CONNECTION_RESET");
    const already = new ServerError({ operation: "listPlans", status: 500, code: "X" });
    expect(transportError("listPlans", already)).toBe(already);
  });
});

describe("parseErrorBody", () => {
  it.each([
    [json({ error: "E", message: "m" }), { error: "E", message: "m" }],
    [json({ error: "E", error_description: "d" }), { error: "E", message: "d" }],
    [json({ code: "C", message: "" }), { error: "C", message: undefined }],
    ["", { error: undefined, message: undefined }],
    ["   \n ", { error: undefined, message: undefined }],
    ["<p>Service <b>Unavailable</b></p>", { error: undefined, message: "Service Unavailable" }],
  ])("reads %j", (body, expected) => {
    expect(parseErrorBody(body)).toEqual(expected);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2025, 1, 6, 12, 0, 0);
  it.each<[string, string | string[] | undefined, number | null]>([
    ["delta seconds", "5", 5000],
    ["delta seconds with spaces", " 2 ", 2000],
    ["fractional seconds", "0.25", 250],
    ["zero", "0", 0],
    ["an HTTP date 30 s ahead", new Date(now + 30_000).toUTCString(), 30_000],
    ["an HTTP date in the past", new Date(now - 60_000).toUTCString(), 0],
    ["the first of repeated headers", ["3", "9"], 3000],
    ["absent", undefined, null],
    ["empty", "", null],
    ["a word", "soon", null],
    ["a negative number", "-1", null],
    ["garbage with a number", "abc 12", null],
  ])("reads %s", (_name, value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("where a transport error happened", () => {
  const url = new URL("https://tas.example.com/Testinium.RestApi/api/plans");
  it.each<[string, unknown, string]>([
    [
      "refused",
      { code: "ECONNREFUSED" },
      "CONNECTION_FAILED: cannot connect to tas.example.com:443 (ECONNREFUSED)",
    ],
    ["unknown host", { cause: { code: "ENOTFOUND" } }, "cannot connect to tas.example.com:443 (ENOTFOUND)"],
    [
      "reset",
      { code: "ECONNRESET" },
      "CONNECTION_RESET: the connection to tas.example.com:443 broke off (ECONNRESET)",
    ],
    ["timeout", { code: "UND_ERR_HEADERS_TIMEOUT" }, "TIMEOUT: no answer from tas.example.com:443 in time"],
  ])("names host and port when %s", (_name, err, message) => {
    expect(transportError("listPlans", err, { url }).message).toContain(message);
  });

  it("names the proxy, with its password masked", () => {
    const settings = proxySettings({ HTTPS_PROXY: "http://me:proxy-pass@proxy.internal:3128" });
    const proxy = proxyFor(url, settings);
    const message = transportError("token", { code: "ECONNREFUSED" }, { url, proxy }).message;
    expect(message).toContain(
      "cannot connect to tas.example.com:443 through proxy http://me:***@proxy.internal:3128/",
    );
    expect(message).not.toContain("proxy-pass");
  });

  it.each<[string, NodeJS.ProcessEnv, string, boolean]>([
    ["HTTPS_PROXY for https", { HTTPS_PROXY: "http://p:1" }, "https://a.example/x", true],
    ["lower-case https_proxy", { https_proxy: "http://p:1" }, "https://a.example/x", true],
    ["HTTP_PROXY for http only", { HTTP_PROXY: "http://p:1", HTTPS_PROXY: "" }, "http://a.example/x", true],
    ["NO_PROXY host", { HTTPS_PROXY: "http://p:1", NO_PROXY: "a.example" }, "https://a.example/x", false],
    [
      "NO_PROXY domain suffix",
      { HTTPS_PROXY: "http://p:1", NO_PROXY: ".example" },
      "https://a.example/x",
      false,
    ],
    [
      "NO_PROXY of another port",
      { HTTPS_PROXY: "http://p:1", NO_PROXY: "a.example:8443" },
      "https://a.example/x",
      true,
    ],
    ["NO_PROXY *", { HTTPS_PROXY: "http://p:1", NO_PROXY: "*" }, "https://a.example/x", false],
    ["nothing set", {}, "https://a.example/x", false],
  ])("proxyFor: %s", (_name, env, target, proxied) => {
    expect(proxyFor(new URL(target), proxySettings(env)) !== undefined).toBe(proxied);
  });
});
