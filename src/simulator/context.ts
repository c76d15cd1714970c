/** What every simulator route handler receives. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SimulatorState } from "./state.js";

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Capture groups of the route pattern (ids from the path). */
  params: string[];
  /** The request body, already read (empty for GET). */
  body: Buffer;
  state: SimulatorState;
  nowMs: number;
}

export type RouteHandler = (ctx: RequestContext) => void | Promise<void>;
