/**
 * Text for a writable stream (stdout), batched into chunks, with backpressure: `flush` waits
 * for 'drain' when the stream says it is full, so a slow reader slows the producer instead of
 * filling memory. A reader that went away (EPIPE: `| head`) ends the output quietly, as in
 * other Unix tools, instead of an uncaught error.
 */
import { setImmediate as nextTurn } from "node:timers/promises";

const CHUNK = 64 * 1024;

export class StreamOutput {
  private parts: string[] = [];
  private size = 0;
  /** Set when the stream failed or its reader went away: nothing more is written. */
  closed = false;
  private readonly onError = () => {
    this.closed = true;
  };

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly chunk = CHUNK,
  ) {
    stream.on("error", this.onError);
  }

  /** Holds the text until the next flush. */
  readonly write = (text: string): void => {
    this.parts.push(text);
    this.size += text.length;
  };

  /** Whether enough text is held to be worth a write. */
  get full(): boolean {
    return this.size >= this.chunk;
  }

  /** Writes what is held; resolves when the stream can take more (or has failed). */
  async flush(): Promise<void> {
    if (this.size === 0) return;
    const text = this.parts.join("");
    this.parts = [];
    this.size = 0;
    if (this.closed) return;
    if (this.stream.write(text)) {
      // Yield once: a failed write reports its error on a later turn of the event loop.
      await nextTurn();
      return;
    }
    // A destroyed stream emits no 'drain' any more (and may have emitted 'close' already).
    if ((this.stream as { destroyed?: boolean }).destroyed) {
      this.closed = true;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off("drain", done);
        this.stream.off("error", done);
        this.stream.off("close", done);
        resolve();
      };
      this.stream.on("drain", done);
      this.stream.on("error", done);
      this.stream.on("close", done);
    });
  }

  /** Stops listening to the stream (call once the output is complete). */
  dispose(): void {
    this.stream.off("error", this.onError);
  }
}
