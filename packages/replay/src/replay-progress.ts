/** Where progress goes: stderr in the CLI; anything with write() and isTTY in tests. */
export interface ProgressStream {
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

const WIDTH = 30;

/**
 * A replay's progress on a stream: on a terminal, one bar redrawn in place with \r (and a
 * newline when done); elsewhere (a log, a pipe) a plain line at each tenth, and at the end, so
 * a log shows the replay moving without a line per chunk.
 */
export class ReplayProgress {
  readonly #stream: ProgressStream;
  readonly #verb: string;
  readonly #startedMs: number;
  readonly #now: () => number;
  #lastTenth = 0;

  constructor(stream: ProgressStream, options: { readonly verb?: string; readonly now?: () => number } = {}) {
    this.#stream = stream;
    this.#verb = options.verb ?? 'replayed';
    this.#now = options.now ?? Date.now;
    this.#startedMs = this.#now();
  }

  /** After each acknowledged chunk: `done` of `total` records written. */
  update(done: number, total: number): void {
    if (total <= 0) return;
    const ratio = Math.min(1, done / total);
    const percent = Math.floor(ratio * 100);
    if (this.#stream.isTTY === true) {
      const filled = Math.round(ratio * WIDTH);
      const bar = `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
      this.#stream.write(`\r[${bar}] ${done}/${total} ${percent}% ${this.#rate(done)}`);
      if (done >= total) this.#stream.write('\n');
      return;
    }
    const tenth = Math.floor(ratio * 10);
    if (tenth > this.#lastTenth) {
      this.#lastTenth = tenth;
      this.#stream.write(`${this.#verb} ${done}/${total} (${percent}%)\n`);
    }
  }

  #rate(done: number): string {
    const seconds = (this.#now() - this.#startedMs) / 1000;
    return seconds <= 0 ? '' : `${(done / seconds).toFixed(0)}/s`;
  }
}
