import { DedupWindow } from './dedup-window.ts';

export interface ProducerDedupWindowsOptions {
  readonly windowMs: number;
  /** Ids remembered in all, shared out equally among the producers. */
  readonly maxEntries: number;
  /** How many producers share them (e.g. the ingress's tokens); each gets maxEntries / producers. */
  readonly producers: number;
  readonly now?: () => number;
}

/**
 * One duplicate window per producer, each with its own share of the ids: a producer that sends
 * many distinct ids evicts only its own older ones, never another's, and an id is a duplicate
 * only of the same producer's. Windows beyond `producers` (a caller naming more producers than
 * it said) push out the one used least recently, so memory stays bounded.
 */
export class ProducerDedupWindows<R> {
  /** In order of last claim: the first is the least recently used. */
  readonly #windows = new Map<string, DedupWindow<R>>();
  readonly #options: ProducerDedupWindowsOptions;
  readonly #share: number;
  readonly #producers: number;

  constructor(options: ProducerDedupWindowsOptions) {
    this.#options = options;
    this.#producers = Math.max(1, Math.floor(options.producers));
    this.#share = Math.max(1, Math.floor(options.maxEntries / this.#producers));
  }

  /** Ids each producer's window keeps at most. */
  get share(): number {
    return this.#share;
  }

  find(producer: string, id: string): ReturnType<DedupWindow<R>['find']> {
    return this.#windows.get(producer)?.find(id);
  }

  claim(producer: string, id: string, pending: Promise<R>, fingerprint: string): void {
    let window = this.#windows.get(producer);
    if (window === undefined) {
      if (this.#windows.size >= this.#producers) {
        const oldest = this.#windows.keys().next();
        if (!oldest.done) this.#windows.delete(oldest.value);
      }
      window = new DedupWindow<R>({
        windowMs: this.#options.windowMs,
        maxEntries: this.#share,
        ...(this.#options.now === undefined ? {} : { now: this.#options.now }),
      });
    } else this.#windows.delete(producer);
    this.#windows.set(producer, window);
    window.claim(id, pending, fingerprint);
  }

  settle(producer: string, id: string, value: R): void {
    this.#windows.get(producer)?.settle(id, value);
  }

  forget(producer: string, id: string): void {
    this.#windows.get(producer)?.forget(id);
  }
}
