/**
 * Bearer tokens: a static token, or the OAuth2 password grant (API-FACTS) with refresh
 * before expiry. Callers invalidate a token that got a 401 and ask again (TasClient: twice at most).
 */
import type { AuthConfig } from "../config/index.js";
import { tokenResponseSchema } from "../wire/schemas.js";
import { parseBody } from "./body.js";
import type { HttpTransport } from "./http.js";

export interface TokenProvider {
  /** A token valid for at least a little while. */
  token(): Promise<string>;
  /** Forget `token` (it was refused) so the next call obtains a new one. */
  invalidate(token: string): void;
  /** Whether a new token can be obtained (false for a static token). */
  readonly renewable: boolean;
}

export class StaticTokenProvider implements TokenProvider {
  readonly renewable = false;
  constructor(private readonly value: string) {}
  async token(): Promise<string> {
    return this.value;
  }
  invalidate(): void {}
}

interface Held {
  access: string;
  refresh: string | null;
  expiresAt: number;
  /** Renew when this moment has passed: before expiry, with margin. */
  renewAt: number;
}

export interface PasswordGrantSettings {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  username: string;
  password: string;
  scope?: string | undefined;
}

export class PasswordGrantProvider implements TokenProvider {
  readonly renewable = true;
  #held: Held | null = null;
  #inflight: Promise<string> | null = null;

  constructor(
    private readonly http: HttpTransport,
    private readonly settings: PasswordGrantSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async token(): Promise<string> {
    const held = this.#held;
    if (held && this.now() < held.renewAt) return held.access;
    // One request at a time, however many callers are waiting.
    this.#inflight ??= this.#obtain(held).finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  invalidate(token: string): void {
    if (this.#held?.access === token) this.#held = null;
  }

  async #obtain(previous: Held | null): Promise<string> {
    if (previous?.refresh && this.now() < previous.expiresAt) {
      try {
        return await this.#grant({ grant_type: "refresh_token", refresh_token: previous.refresh });
      } catch {
        // A refused refresh falls back to the password grant below.
      }
    }
    const s = this.settings;
    const form: Record<string, string> = {
      grant_type: "password",
      username: s.username,
      password: s.password,
    };
    if (s.scope) form.scope = s.scope;
    return this.#grant(form);
  }

  async #grant(form: Record<string, string>): Promise<string> {
    const s = this.settings;
    const basic = Buffer.from(`${s.clientId}:${s.clientSecret}`).toString("base64");
    const res = await this.http.requestText({
      operation: "token",
      method: "POST",
      url: new URL(s.tokenUrl),
      headers: {
        authorization: `Basic ${basic}`,
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
      },
      body: new URLSearchParams(form).toString(),
      idempotent: true,
    });
    const token = parseBody(res.text, tokenResponseSchema, "token", res.statusCode);
    const now = this.now();
    const lifetimeMs = (token.expires_in ?? 3600) * 1000;
    this.#held = {
      access: token.access_token,
      refresh: token.refresh_token ?? null,
      expiresAt: now + lifetimeMs,
      renewAt: now + lifetimeMs - Math.min(60_000, lifetimeMs * 0.1),
    };
    return token.access_token;
  }
}

export function tokenProviderFor(auth: AuthConfig, http: HttpTransport): TokenProvider {
  if ("token" in auth) return new StaticTokenProvider(auth.token.reveal());
  return new PasswordGrantProvider(http, {
    tokenUrl: auth.tokenUrl,
    clientId: auth.clientId.reveal(),
    clientSecret: auth.clientSecret.reveal(),
    username: auth.username.reveal(),
    password: auth.password.reveal(),
    scope: auth.scope,
  });
}
