/** Bull Board at /queues: the daemon's queues, read-only unless the config says otherwise. */
import { createBullBoard } from "@bull-board/api";
import { BullMQAdapter } from "@bull-board/api/bullMQAdapter";
import { HonoAdapter } from "@bull-board/hono";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Queue } from "bullmq";
import type { Hono } from "hono";

export const DASHBOARD_PATH = "/queues";

/** A Hono app serving the board (its page, API and static assets) under DASHBOARD_PATH. */
export function dashboard(queues: Queue[], writable: boolean): Hono {
  const adapter = new HonoAdapter(serveStatic);
  createBullBoard({
    // readOnlyMode is enforced by the board's API too (405), not only hidden in the page.
    queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: !writable })),
    serverAdapter: adapter,
    options: { uiConfig: { boardTitle: "tas-sync" } },
  });
  adapter.setBasePath(DASHBOARD_PATH);
  return adapter.registerPlugin();
}
