/** HTTP Basic auth for the routes that show data (/metrics, /queues). */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { BasicAuth } from "./types.js";

const REALM = 'Basic realm="tas-sync"';

/** Equal in constant time: hashing first makes both sides the same length, so length leaks nothing. */
function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The user and password of an `Authorization: Basic ...` header, or null when it is not one. */
export function parseBasic(header: string | undefined): { username: string; password: string } | null {
  const match = header?.match(/^Basic +([A-Za-z0-9+/=]+) *$/i);
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function basicAuth(expected: BasicAuth): MiddlewareHandler {
  return async (c, next) => {
    const given = parseBasic(c.req.header("Authorization"));
    // Both comparisons always run, so a wrong user name takes as long as a wrong password.
    const userOk = sameSecret(given?.username ?? "", expected.username);
    const passOk = sameSecret(given?.password ?? "", expected.password.reveal());
    if (given && userOk && passOk) return next();
    return c.text("authentication required\n", 401, { "WWW-Authenticate": REALM });
  };
}
