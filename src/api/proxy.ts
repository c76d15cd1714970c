/**
 * The HTTP(S) proxy of the standard environment variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
 * or their lower-case forms), as curl and undici read them: the transport sends through it,
 * and an error that could not reach the service names it.
 */
import { maskUrl } from "../config/database.js";
import { portOf } from "./errors.js";

export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string | undefined;
}

const read = (env: NodeJS.ProcessEnv, name: string) => env[name] || env[name.toLowerCase()] || undefined;

/** The proxy variables of `env`, or null when no proxy is set. */
export function proxySettings(env: NodeJS.ProcessEnv = process.env): ProxySettings | null {
  const httpProxy = read(env, "HTTP_PROXY");
  const httpsProxy = read(env, "HTTPS_PROXY") ?? httpProxy;
  if (!httpProxy && !httpsProxy) return null;
  return { httpProxy, httpsProxy, noProxy: read(env, "NO_PROXY") };
}

/** The proxy a request to `url` goes through (its password masked), or undefined. */
export function proxyFor(url: URL, settings: ProxySettings | null): string | undefined {
  if (!settings) return undefined;
  const proxy = url.protocol === "https:" ? settings.httpsProxy : settings.httpProxy;
  if (!proxy || bypassed(url, settings.noProxy)) return undefined;
  return maskUrl(proxy);
}

/** NO_PROXY: "*", or host names (a leading "." or "*." matches subdomains), each with an optional port. */
function bypassed(url: URL, noProxy: string | undefined): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = portOf(url);
  for (const raw of (noProxy ?? "").split(/[,\s]+/)) {
    if (!raw) continue;
    if (raw === "*") return true;
    const match = /^(.*?)(?::(\d+))?$/.exec(raw.toLowerCase());
    const entry = (match?.[1] ?? "").replace(/^\*?\./, "").replace(/^\[|\]$/g, "");
    if (match?.[2] && match[2] !== port) continue;
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}
