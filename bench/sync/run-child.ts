/** Forks ./child.ts for one side of bench:sync and waits for its one message. */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { maskUrl } from "../../src/config/index.js";
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

export const PG_URL =
  process.env.BENCH_PG_URL ?? process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Databases made for the run at PG_URL, each dropped by `dropAll`. */
export class BenchDatabases {
  readonly #admin = new pg.Client({ connectionString: PG_URL });
  readonly #made: string[] = [];
  #connected = false;

  async create(): Promise<string> {
    if (!this.#connected) {
      try {
        await this.#admin.connect();
      } catch (err) {
        throw new Error(`PostgreSQL at ${maskUrl(PG_URL)} does not answer: ${(err as Error).message}`);
      }
      this.#connected = true;
    }
    const name = `tas_bench_${randomBytes(6).toString("hex")}`;
    await this.#admin.query(`CREATE DATABASE ${name}`);
    this.#made.push(name);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return url.toString();
  }

  async dropAll(): Promise<void> {
    if (!this.#connected) return;
    for (const name of this.#made)
      await this.#admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await this.#admin.end();
  }
}
