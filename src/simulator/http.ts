/** Small node:http helpers shared by the simulator's route handlers. */
import type { IncomingMessage, ServerResponse } from "node:http";

export type Headers = Record<string, string | number>;

export function sendBytes(res: ServerResponse, status: number, body: Buffer, headers: Headers = {}): void {
  res.writeHead(status, {
    "content-type": "application/json;charset=UTF-8",
    "content-length": body.length,
    ...headers,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  sendBytes(res, status, Buffer.from(JSON.stringify(body), "utf8"), headers);
}

/** The service's documented error body: {"error": SYMBOLIC_NAME, "message": text}. */
export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  message: string,
  headers: Headers = {},
  extra: Record<string, unknown> = {},
): void {
  sendJson(res, status, { error, message, ...extra }, headers);
}

/** Reads the whole request body; undefined when it exceeds `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Keep draining so the keep-alive connection stays usable, but stop buffering.
    if (size > limit) tooLarge = true;
    else chunks.push(chunk);
  }
  return tooLarge ? undefined : Buffer.concat(chunks);
}

/** A strictly decimal, safe, non-negative integer, or undefined ("12a", "", "1e3" are not). */
export function parseId(text: string | null | undefined): number | undefined {
  if (!text || !/^\d{1,15}$/.test(text)) return undefined;
  return Number(text);
}

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Sends the headers (with the full content-length) and the first half of `body`, then cuts
 * the connection: the client sees a 200 whose body breaks off.
 */
export function sendHalfThenCut(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { "content-type": "application/json;charset=UTF-8", "content-length": body.length });
  // Destroyed once the half is handed to the socket, so those bytes still reach the client.
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
}
