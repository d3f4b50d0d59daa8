import type { Dispatcher } from 'undici';
import type { AttemptReport } from './http-client.ts';

export interface AttemptLimits {
  /** The whole attempt, from dispatch to the end of the answer. */
  readonly timeoutMs: number;
  /** Bytes of the answer kept as evidence. */
  readonly excerptBytes: number;
  /** Bytes read at most; past it the connection is dropped. */
  readonly maxBodyBytes: number;
}

const keep = (excerpt: string): string => excerpt;

class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

class AnswerTooLong extends Error {
  override readonly name = 'AnswerTooLong';
}

/**
 * Sends one request through undici's handler interface and reports it. Cheaper per request than
 * `request()`, which wraps every answer in a stream and every deadline in an AbortSignal: a
 * webhook answer is only a status, a Retry-After and a short excerpt. `redact` takes the request's
 * credentials out of the excerpt (an endpoint may echo the request). Never rejects.
 */
export function dispatchAttempt(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limits: AttemptLimits,
  redact: (excerpt: string) => string = keep,
): Promise<AttemptReport> {
  return new Promise((resolve) => {
    const handler = new AttemptHandler(limits, performance.now(), resolve, redact);
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      handler.onResponseError(null, err instanceof Error ? err : new Error(String(err)));
    }
  });
}

class AttemptHandler implements Dispatcher.DispatchHandler {
  readonly #limits: AttemptLimits;
  readonly #started: number;
  readonly #resolve: (report: AttemptReport) => void;
  readonly #redact: (excerpt: string) => string;
  readonly #timer: NodeJS.Timeout;
  #controller: Dispatcher.DispatchController | null = null;
  #status = 0;
  #retryAfter: string | null = null;
  #excerpt: Buffer | null = null;
  #read = 0;
  #done = false;

  constructor(
    limits: AttemptLimits,
    started: number,
    resolve: (report: AttemptReport) => void,
    redact: (excerpt: string) => string,
  ) {
    this.#limits = limits;
    this.#started = started;
    this.#resolve = resolve;
    this.#redact = redact;
    // The answer is a timeout at the deadline, even while the request still waits for a
    // connection; it is dropped when it gets one (or now, if it has).
    this.#timer = setTimeout(() => {
      this.#finish({ kind: 'timeout', durationMs: this.#elapsed(), excerpt: '' });
      this.#controller?.abort(new DeadlinePassed());
    }, limits.timeoutMs);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // The deadline timer can fire late on a busy loop: a request that gets its connection after
    // its deadline is a timeout, never sent, whether or not the timer has run yet.
    if (!this.#done && this.#elapsed() >= this.#limits.timeoutMs)
      this.#finish({ kind: 'timeout', durationMs: this.#elapsed(), excerpt: '' });
    if (this.#done) controller.abort(new DeadlinePassed());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx answers come before the final one.
    if (statusCode < 200) return;
    this.#status = statusCode;
    const retryAfter = headers['retry-after'];
    this.#retryAfter = typeof retryAfter === 'string' ? retryAfter : null;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const keep = this.#limits.excerptBytes;
    if (this.#read < keep) {
      const part = chunk.subarray(0, keep - this.#read);
      this.#excerpt = this.#excerpt ? Buffer.concat([this.#excerpt, part]) : part;
    }
    this.#read += chunk.length;
    if (this.#read > this.#limits.maxBodyBytes) {
      // The status is known: that is the answer. Reading on would let an endpoint make the
      // pusher read without end.
      this.#answered();
      controller.abort(new AnswerTooLong());
    }
  }

  onResponseEnd(): void {
    this.#answered();
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    if (this.#done) return;
    const durationMs = this.#elapsed();
    const code = errorCode(error);
    if (TIMEOUT_CODES.has(code)) this.#finish({ kind: 'timeout', durationMs, excerpt: '' });
    else this.#finish({ kind: 'connection-error', code, durationMs, excerpt: '' });
  }

  #answered(): void {
    this.#finish({
      kind: 'response',
      status: this.#status,
      retryAfter: this.#retryAfter,
      durationMs: this.#elapsed(),
      // Only an answer with a body pays for the redaction.
      excerpt: this.#excerpt ? this.#redact(this.#excerpt.toString('utf8')) : '',
    });
  }

  #finish(report: AttemptReport): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    this.#resolve(report);
  }

  #elapsed(): number {
    return performance.now() - this.#started;
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string {
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const cause = (err as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== err) return errorCode(cause);
    const name = (err as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return 'UNKNOWN';
}
