import type { Experiment } from "../context.js";

export const redisRestart: Experiment = {
  name: "redis-restart",
  summary: "todo",
  async run() {
    return { ok: false, figure: "redis-restart: not written yet", problems: [] };
  },
};
