import type { Experiment } from "../context.js";

export const twoWriters: Experiment = {
  name: "two-writers",
  summary: "todo",
  async run() {
    return { ok: false, figure: "two-writers: not written yet", problems: [] };
  },
};
