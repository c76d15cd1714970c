/**
 * Access and refresh tokens of the simulated OAuth2 server. Access tokens look like JWTs (the
 * real ones are) but are checked by lookup; clients must treat them as opaque anyway.
 * Static per-company tokens never expire, for callers configured with a fixed bearer token.
 */
import { createHmac, randomBytes, randomUUID } from "node:crypto";

export interface TokenGrant {
  companyId: number;
  username: string;
  clientId: string;
  scope: string;
}

export interface TokenResponseBody {
  access_token: string;
  token_type: "bearer";
  refresh_token: string;
  expires_in: number;
  scope: string;
  jti: string;
}

export type TokenCheck =
  | { ok: true; companyId: number }
  | { ok: false; reason: "missing" | "invalid" | "expired" };

interface Issued {
  grant: TokenGrant;
  expiresAtMs: number;
}

const REFRESH_TTL_MS = 30 * 86_400_000;
/** Expired tokens are remembered a while so a late caller gets "expired", not "invalid". */
const FORGET_AFTER_MS = 3_600_000;

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

export class TokenStore {
  private readonly access = new Map<string, Issued>();
  private readonly refreshTokens = new Map<string, Issued>();
  private readonly key = randomBytes(32);
  private issuedSincePurge = 0;

  constructor(
    private readonly ttlSeconds: number,
    private readonly staticTokens: ReadonlyMap<string, number>,
  ) {}

  issue(grant: TokenGrant, nowMs: number, refreshToken?: string): TokenResponseBody {
    const jti = randomUUID();
    const exp = Math.floor(nowMs / 1000) + this.ttlSeconds;
    const head = `${b64url({ alg: "HS256", typ: "JWT" })}.${b64url({
      user_name: grant.username,
      company_id: grant.companyId,
      client_id: grant.clientId,
      scope: grant.scope.split(" "),
      exp,
      jti,
    })}`;
    const token = `${head}.${createHmac("sha256", this.key).update(head).digest("base64url")}`;
    this.access.set(token, { grant, expiresAtMs: nowMs + this.ttlSeconds * 1000 });
    // Like Spring's default, a refresh keeps the same refresh token.
    const refresh = refreshToken ?? randomUUID();
    if (!refreshToken) this.refreshTokens.set(refresh, { grant, expiresAtMs: nowMs + REFRESH_TTL_MS });
    if (++this.issuedSincePurge >= 1000) this.purge(nowMs);
    return {
      access_token: token,
      token_type: "bearer",
      refresh_token: refresh,
      expires_in: this.ttlSeconds,
      scope: grant.scope,
      jti,
    };
  }

  /** A new access token for a valid refresh token, or undefined. */
  refresh(refreshToken: string, nowMs: number): TokenResponseBody | undefined {
    const found = this.refreshTokens.get(refreshToken);
    if (!found || found.expiresAtMs <= nowMs) return undefined;
    return this.issue(found.grant, nowMs, refreshToken);
  }

  /** Checks an Authorization header value ("Bearer <token>"). */
  check(authorization: string | undefined, nowMs: number): TokenCheck {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    const token = match?.[1];
    if (!token) return { ok: false, reason: "missing" };
    const fixed = this.staticTokens.get(token);
    if (fixed !== undefined) return { ok: true, companyId: fixed };
    const found = this.access.get(token);
    if (!found) return { ok: false, reason: "invalid" };
    if (found.expiresAtMs <= nowMs) return { ok: false, reason: "expired" };
    return { ok: true, companyId: found.grant.companyId };
  }

  /** Every access and refresh token issued and not yet forgotten, for tests that hunt leaks. */
  issued(): string[] {
    return [...this.access.keys(), ...this.refreshTokens.keys()];
  }

  private purge(nowMs: number): void {
    this.issuedSincePurge = 0;
    for (const [token, t] of this.access) {
      if (t.expiresAtMs + FORGET_AFTER_MS < nowMs) this.access.delete(token);
    }
  }
}
