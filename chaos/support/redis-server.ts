/**
 * A redis-server of the caller's own (a test, a chaos experiment), on a free port, that it can
 * stop and start again (empty: nothing is kept on disk), to prove behaviour across Redis
 * outages, or that asks for a password (`requirepass`). Never the shared one. Used by test/
 * (through test/support/redis-server.ts) and chaos/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

export class OwnRedis {
  readonly #dir = mkdtempSync(join(tmpdir(), "tas-redis-"));
  #child: ChildProcess | null = null;

  private constructor(
    readonly port: number,
    readonly password?: string,
  ) {}

  /** With `password`, clients must AUTH with it (then `url` carries it, percent-encoded). */
  static async start(opts: { password?: string } = {}): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort(), opts.password);
    await r.start();
    return r;
  }

  get url(): string {
    const auth = this.password === undefined ? "" : `:${encodeURIComponent(this.password)}@`;
    return `redis://${auth}127.0.0.1:${this.port}`;
  }

  /** Starts (again, empty) and resolves once it answers PING. */
  async start(): Promise<void> {
    this.#child = spawn(
      "redis-server",
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        this.#dir,
        ...(this.password === undefined ? [] : ["--requirepass", this.password]),
      ],
      { stdio: "ignore" },
    );
    for (let i = 0; i < 100; i++) {
      if (await this.answers()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server on port ${this.port} did not answer`);
  }

  /** Stops it (kill -9: nothing is saved) and resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await gone;
    this.#child = null;
  }

  /** Kills it at once without waiting (a runner that is being stopped). */
  killNow(): void {
    this.#child?.kill("SIGKILL");
  }

  async answers(): Promise<boolean> {
    const probe = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on("error", () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === "PONG";
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
