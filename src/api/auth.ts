/**
 * Bearer tokens: a static token, or the OAuth2 password grant (API-FACTS) with refresh
 * before expiry. Callers invalidate a token that got a 401 and ask again (TasClient: twice at most).
 */
import type { AuthConfig } from "../config/index.js";
import { tokenResponseSchema } from "../wire/schemas.js";
import { parseBody } from "./body.js";
import {
  type ApiError,
  InvalidCredentialsError,
  isUnreachable,
  NotFoundError,
  withDetail,
} from "./errors.js";
import type { HttpTransport } from "./http.js";

export interface TokenProvider {
  /** A token valid for at least a little while. */
  token(): Promise<string>;
  /** Forget `token` (it was refused) so the next call obtains a new one. */
  invalidate(token: string): void;
  /** Whether a new token can be obtained (false for a static token). */
  readonly renewable: boolean;
  /** Which credential a refused token came from, for the error (never the secret itself). */
  readonly refused: string;
}

export class StaticTokenProvider implements TokenProvider {
  readonly renewable = false;
  readonly refused: string;
  /** `source`: where the token is configured (`companies[2].auth`). */
  constructor(
    private readonly value: string,
    source = "auth",
  ) {
    this.refused = `the service refused the static token (${source}.token)`;
  }
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
  /** Where these settings are configured (`auth`, `companies[1].auth`), for errors. */
  source?: string;
}

export class PasswordGrantProvider implements TokenProvider {
  readonly renewable = true;
  get refused(): string {
    const s = this.settings;
    return `the service refused the token of user "${s.username}" from ${s.tokenUrl} (${s.source ?? "auth"})`;
  }
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
    const res = await this.http
      .requestText({
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
      })
      .catch((err: unknown) => {
        if (err instanceof InvalidCredentialsError) throw withDetail(err, this.#whoWasRefused(err));
        const key = `${s.source ?? "auth"}.tokenUrl`;
        if (isUnreachable(err)) throw withDetail(err, `check ${key}`);
        if (err instanceof NotFoundError) throw withDetail(err, `POST ${s.tokenUrl}: check ${key}`);
        throw err;
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

  /**
   * Which credential the token endpoint refused, and where, in words a person can act on. The
   * real service answers INVALID_CLIENT to a wrong user password as well as to a wrong client,
   * so that answer names both (user first). Never a secret: the user name and the URL only.
   */
  #whoWasRefused(err: ApiError): string {
    const s = this.settings;
    const at = s.source ?? "auth";
    const who = `${s.tokenUrl} refused user "${s.username}"`;
    if (err.code === "INVALID_GRANT") return `${who}: check ${at}.username and ${at}.password`;
    if (err.code === "INVALID_CLIENT")
      return `${who} or its OAuth2 client: check ${at}.username and ${at}.password, then ${at}.clientId and ${at}.clientSecret`;
    return `${who} (${at})`;
  }
}

/** The token provider of an auth block; `source` says where it is configured (`companies[1].auth`). */
export function tokenProviderFor(auth: AuthConfig, http: HttpTransport, source = "auth"): TokenProvider {
  if ("token" in auth) return new StaticTokenProvider(auth.token.reveal(), source);
  return new PasswordGrantProvider(http, {
    source,
    tokenUrl: auth.tokenUrl,
    clientId: auth.clientId.reveal(),
    clientSecret: auth.clientSecret.reveal(),
    username: auth.username.reveal(),
    password: auth.password.reveal(),
    scope: auth.scope,
  });
}
