/**
 * A node:http server for hostile-response tests: each test sets what GET /api/plans and the
 * report endpoint answer. Bodies can be streamed on the fly, never held whole in memory.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface HostileServer {
  baseUrl: string;
  /** Requests seen, by path without the query. */
  hits: Map<string, number>;
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export async function startHostileServer(): Promise<HostileServer> {
  let handler: Handler = (_req, res) => res.writeHead(404).end();
  const hits = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/Testinium.RestApi`,
    hits,
    setHandler: (h) => {
      handler = h;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** What a streamed body did: bytes written before it ended or the client went away. */
export interface StreamResult {
  written: number;
  /** False when the client closed the connection first. */
  completed: boolean;
}

/**
 * Writes `head`, then `piece` repeatedly until about `total` bytes, then `tail`, honouring
 * back-pressure; stops as soon as the client goes away.
 */
export function streamBody(
  res: ServerResponse,
  parts: { head: string; piece: Buffer; tail: string; total: number },
): Promise<StreamResult> {
  return new Promise((resolve) => {
    let written = 0;
    let closed = false;
    const done = (completed: boolean) => resolve({ written, completed });
    res.once("close", () => {
      closed = true;
      if (!res.writableFinished) done(false);
    });
    res.writeHead(200, { "content-type": "application/json;charset=UTF-8" });
    const write = (b: Buffer | string) => {
      written += typeof b === "string" ? Buffer.byteLength(b) : b.length;
      return res.write(b);
    };
    write(parts.head);
    const pump = () => {
      while (!closed && written + parts.piece.length + parts.tail.length <= parts.total) {
        if (!write(parts.piece)) {
          res.once("drain", pump);
          return;
        }
      }
      if (closed) return;
      written += Buffer.byteLength(parts.tail);
      res.end(parts.tail, () => done(true));
    };
    pump();
  });
}

/** A valid plan of `bytes` bytes or a little more, as JSON text. */
function planText(id: number, companyId: number, bytes: number): string {
  const base = { id, company_id: companyId, plan_name: "", scenarios: [1, 2, 3] };
  const pad = Math.max(0, bytes - JSON.stringify(base).length);
  return JSON.stringify({ ...base, plan_name: "p".repeat(pad) });
}

/**
 * The parts of a plan list of about `total` bytes: many plans of ~1 KB in 64 KiB pieces. Ids
 * repeat from piece to piece (the client does not care; a sync would reject duplicates).
 */
export function planListParts(companyId: number, total: number) {
  const plans: string[] = [];
  let size = 0;
  for (let id = 1; size < 64 * 1024; id++) {
    const p = `${planText(id, companyId, 1000)},`;
    plans.push(p);
    size += p.length;
  }
  const piece = Buffer.from(plans.join(""));
  return { head: "[", piece, tail: `${planText(0, companyId, 10)}]`, total, perPiece: plans.length };
}
