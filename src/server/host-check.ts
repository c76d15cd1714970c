/**
 * DNS-rebinding defence for a server without credentials: a page on evil.example whose name
 * later resolves to 127.0.0.1 can reach the server from a browser, but its requests still say
 * `Host: evil.example`. Only the bound address, localhost, the loopback addresses (and, on a
 * wildcard address, this machine's own) and the names in server.allowedHosts are served.
 */
import { networkInterfaces } from "node:os";
import type { MiddlewareHandler } from "hono";

const WILDCARD = new Set(["0.0.0.0", "::", "[::]"]);
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];

/** The host part of a Host header, lower case, without port, brackets or a trailing dot. */
export function hostOf(header: string): string {
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(value);
  const host = bracketed ? (bracketed[1] ?? "") : value.replace(/:\d*$/, "");
  return host.replace(/\.$/, "");
}

/** The names a request's Host may give: see the file's comment. `interfaces` is for tests. */
export function servedHosts(
  bound: string,
  allowed: readonly string[],
  interfaces: () => string[] = localAddresses,
): Set<string> {
  const names = new Set([...LOOPBACK_NAMES, ...allowed.map(hostOf)]);
  const host = hostOf(bound);
  if (WILDCARD.has(bound) || WILDCARD.has(host)) for (const a of interfaces()) names.add(a.toLowerCase());
  else names.add(host);
  return names;
}

function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** 421 for a request whose Host is not served (a missing Host too: every browser sends one). */
export function hostCheck(served: ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("host");
    const host = header === undefined ? null : hostOf(header);
    if (host !== null && (served.has(host) || /^127(?:\.\d{1,3}){3}$/.test(host))) return next();
    const shown = header === undefined ? "(none)" : JSON.stringify(header.slice(0, 100));
    return c.text(
      `Host ${shown} is not served here (DNS-rebinding defence): add the name to server.allowedHosts, or set server.username and server.password\n`,
      421,
    );
  };
}
