/** Progress of a long run: a bar on a TTY, plain periodic lines otherwise. */
export class Progress {
  readonly #started = Date.now();
  #lastRender = 0;
  #done = 0;

  constructor(
    private readonly total: number,
    private readonly label: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly everyMs = stream.isTTY ? 200 : 5000,
  ) {}

  update(done: number): void {
    this.#done = done;
    const now = Date.now();
    if (now - this.#lastRender < this.everyMs) return;
    this.#lastRender = now;
    this.#render(false);
  }

  finish(): void {
    this.#render(true);
  }

  #render(final: boolean): void {
    const elapsed = (Date.now() - this.#started) / 1000;
    const rate = elapsed > 0 ? this.#done / elapsed : 0;
    const left = this.total - this.#done;
    const eta = rate > 0 ? formatDuration(left / rate) : "?";
    const stats = `${this.#done}/${this.total}  ${rate.toFixed(1)}/s  ${final ? `in ${formatDuration(elapsed)}` : `ETA ${eta}`}`;
    if (this.stream.isTTY) {
      const width = 30;
      const filled = this.total ? Math.round((this.#done / this.total) * width) : width;
      this.stream.write(
        `\r${this.label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${stats}\x1b[K${final ? "\n" : ""}`,
      );
    } else {
      this.stream.write(`${this.label}: ${stats}\n`);
    }
  }
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}
