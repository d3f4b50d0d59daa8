import { setTimeout as sleep } from 'node:timers/promises';
import { post } from './ingress.ts';

/** One publish request as the producer saw it; status 0 when no HTTP answer came at all. */
export interface PublishAnswer {
  readonly id: string;
  readonly status: number;
  /** Epoch ms when the request was sent and when its answer arrived. */
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly code: string | null;
  readonly retryAfter: string | null;
}

export interface PublisherOptions {
  /** Stop after this many requests even if stop() was not called (keeps loads bounded). */
  readonly maxEvents: number;
  /** Pause between requests: a steady trickle rather than a flood on a 2-core machine. */
  readonly gapMs: number;
  /** The request body of the i-th event (with its id). */
  readonly event: (i: number, id: string) => Record<string, unknown>;
  readonly idPrefix: string;
  readonly token?: string;
  /** Requests in flight at once (default 1): with more, one slow answer does not stall intake. */
  readonly concurrency?: number;
}

/**
 * Publishes to an ingress one request after another until stopped, keeping every answer, so a
 * fault scenario can check what each 202 promised against what the subscriber received.
 */
export class ContinuousPublisher {
  readonly answers: PublishAnswer[] = [];
  readonly #url: string;
  readonly #options: PublisherOptions;
  #stopped = false;
  #next = 0;
  #loops: Promise<void>[] = [];

  constructor(ingressUrl: string, options: PublisherOptions) {
    this.#url = `${ingressUrl}/v1/events`;
    this.#options = options;
  }

  start(): void {
    this.#loops = Array.from({ length: this.#options.concurrency ?? 1 }, () => this.#run());
  }

  /** Stops after the request in flight, and returns every answer. */
  async stop(): Promise<PublishAnswer[]> {
    this.#stopped = true;
    await Promise.all(this.#loops);
    return this.answers;
  }

  get accepted(): readonly PublishAnswer[] {
    return this.answers.filter((a) => a.status === 202);
  }

  async #run(): Promise<void> {
    const { maxEvents, gapMs, event, idPrefix, token } = this.#options;
    for (let i = this.#next++; i < maxEvents && !this.#stopped; i = this.#next++) {
      const id = `${idPrefix}-${i}`;
      const sentAt = Date.now();
      let status = 0;
      let code: string | null = null;
      let retryAfter: string | null = null;
      try {
        const answer = await post(this.#url, event(i, id), token === undefined ? {} : { token });
        status = answer.status;
        retryAfter = answer.headers.get('retry-after');
        const error = (answer.body as { error?: { code?: unknown } } | null)?.error;
        if (typeof error?.code === 'string') code = error.code;
      } catch (err) {
        code = err instanceof Error ? err.message : String(err);
      }
      this.answers.push({ id, status, sentAt, answeredAt: Date.now(), code, retryAfter });
      await sleep(gapMs);
    }
  }
}
