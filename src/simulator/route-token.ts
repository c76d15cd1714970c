/**
 * POST {base}/oauth/token: the OAuth2 password and refresh_token grants of the self-hosted
 * edition (API-FACTS "Authentication"). Client credentials come only via HTTP Basic, so a
 * client that sends them another way fails here as it would against the real server.
 */
import { timingSafeEqual } from "node:crypto";
import { SIM_CLIENT_ID } from "./client.js";
import type { RequestContext } from "./context.js";
import { headerValue, sendError, sendJson } from "./http.js";

const DEFAULT_SCOPE = "read write";

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function basicClient(authorization: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function invalidClient(ctx: RequestContext, description: string): void {
  sendError(
    ctx.res,
    401,
    "INVALID_CLIENT",
    description,
    { "www-authenticate": 'Basic realm="oauth2/client"' },
    { error_description: description },
  );
}

export function handleToken(ctx: RequestContext): void {
  const { req, res, state } = ctx;
  const client = basicClient(headerValue(req, "authorization"));
  if (!client || !sameText(client.id, SIM_CLIENT_ID) || !sameText(client.secret, state.clientSecret)) {
    invalidClient(ctx, "Bad client credentials");
    return;
  }
  if (!/^application\/x-www-form-urlencoded\b/i.test(headerValue(req, "content-type") ?? "")) {
    sendError(res, 400, "INVALID_REQUEST", "Content-Type must be application/x-www-form-urlencoded");
    return;
  }
  const form = new URLSearchParams(ctx.body.toString("utf8"));
  const grantType = form.get("grant_type");
  const noStore = { "cache-control": "no-store", pragma: "no-cache" };

  if (grantType === "password") {
    const username = form.get("username");
    const password = form.get("password");
    if (!username || password === null) {
      sendError(res, 400, "INVALID_REQUEST", "username and password are required");
      return;
    }
    const company = state.companyByUsername(username);
    if (!company || !sameText(password, company.password)) {
      invalidClient(ctx, "Bad credentials");
      return;
    }
    const scope = form.get("scope")?.trim() || DEFAULT_SCOPE;
    const grant = { companyId: company.id, username, clientId: client.id, scope };
    sendJson(res, 200, state.tokens.issue(grant, ctx.nowMs), noStore);
    return;
  }

  if (grantType === "refresh_token") {
    const refreshToken = form.get("refresh_token");
    const issued = refreshToken ? state.tokens.refresh(refreshToken, ctx.nowMs) : undefined;
    if (!issued) {
      sendError(res, 400, "INVALID_REQUEST", "Invalid refresh token");
      return;
    }
    sendJson(res, 200, issued, noStore);
    return;
  }

  sendError(res, 400, "INVALID_REQUEST", `Unsupported grant type: ${grantType ?? "(missing)"}`);
}
