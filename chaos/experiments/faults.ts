import type { Experiment } from "../context.js";

export const faults: Experiment = {
  name: "faults",
  summary: "todo",
  async run() {
    return { ok: false, figure: "faults: not written yet", problems: [] };
  },
};
