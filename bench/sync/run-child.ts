/** Forks ./child.ts for one side of bench:sync and waits for its one message. */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ChildInput, ChildResult } from "./child.js";

const CHILD = fileURLToPath(new URL("./child.js", import.meta.url));

export function runChild(input: ChildInput): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [JSON.stringify(input)]);
    let result: ChildResult | undefined;
    child.once("message", (m) => {
      result = m as ChildResult;
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (result) resolve(result);
      else
        reject(
          new Error(`the ${input.mode} process ended (${signal ?? `exit code ${code}`}) without a result`),
        );
    });
  });
}
