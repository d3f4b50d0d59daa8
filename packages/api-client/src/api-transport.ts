import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorBody } from '@hookstream/api-schemas';
import { redactUrlText } from '@hookstream/contracts';
import { z } from 'zod';
import { ApiClientError } from './api-client-error.ts';
import { API_OPERATIONS, type ApiOperation } from './operations.ts';

/** How the client reaches the API; every number bounded, a bad one names its field. */
export const ApiClientOptions = z.object({
  /**
   * The API's base URL, as `hookstream api` prints it (a path prefix is kept). No user info:
   * fetch refuses such a URL, quoting it whole (password and all) in its error.
   */
  baseUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .refine(withoutUserInfo, 'no user:password@ (the bearer token authenticates)'),
  /** A bearer token of HOOKSTREAM_API_TOKENS: the operator's or one tenant's. */
  token: z
    .string()
    .min(1)
    .max(4096)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
  /** Each request's limit, headers and body (default 30 s). */
  timeoutMs: z.number().int().min(1).max(600_000).default(30_000),
  /** How often a 429 (any call) or a 503 (GET, PUT, DELETE) is tried again (default 2, at most 5). */
  maxRetries: z.number().int().min(0).max(5).default(2),
  /** The longest Retry-After the client waits out itself; a longer one is the caller's (ApiClientError.retryAfterMs). */
  maxRetryWaitMs: z.number().int().min(0).max(60_000).default(5_000),
});
export type ApiClientOptions = z.input<typeof ApiClientOptions>;

/** One request: its path's `{x}` values, query and JSON body, validated before they get here. */
export interface ApiCall {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
  readonly ifMatch?: string | undefined;
  /** The call's own deadline when longer than the client's (a long poll). */
  readonly timeoutMs?: number;
}

export interface ApiAnswer<T> {
  readonly status: number;
  readonly etag: string | null;
  readonly body: T;
}

/** A 429 or 503 without Retry-After is tried again after this long. */
const DEFAULT_WAIT_MS = 1000;
/** Codes a later identical call may get past (besides 429 and 5xx gateways): the server says canRetry. */
const RETRYABLE_CODES = new Set(['replay_running', 'group_in_use']);
/** At most this much of an answer is read: the API's answers are JSON of a few hundred KiB at most. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * HTTP for the client: one request per call over fetch, its answer parsed with the route's
 * schema (a 2xx) or the API's error shape (the rest), a 429/503 tried again within bounds.
 */
export class ApiTransport {
  readonly #options: z.output<typeof ApiClientOptions>;
  readonly #base: string;

  constructor(options: ApiClientOptions) {
    const parsed = ApiClientOptions.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiClientError(
        'invalid_options',
        `${issue?.path.join('.') || 'options'}: ${issue?.message ?? 'invalid'}`,
        { operation: 'constructor' },
      );
    }
    this.#options = parsed.data;
    this.#base = parsed.data.baseUrl.replace(/\/+$/, '');
  }

  get baseUrl(): string {
    return this.#base;
  }

  async send<S extends z.ZodType>(
    operation: ApiOperation,
    call: ApiCall,
    answer: S,
  ): Promise<ApiAnswer<z.output<S>>> {
    const { method } = API_OPERATIONS[operation];
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once(operation, call, answer);
      } catch (err) {
        if (!(err instanceof ApiClientError) || attempt >= this.#options.maxRetries) throw err;
        // A 429 was refused before the route ran; a 503 POST (a rotation, a replay) may have done something.
        const again = err.status === 429 || (err.status === 503 && method !== 'POST');
        const wait = err.retryAfterMs ?? DEFAULT_WAIT_MS;
        if (!again || wait > this.#options.maxRetryWaitMs) throw err;
        await sleep(wait);
      }
    }
  }

  async #once<S extends z.ZodType>(
    operation: ApiOperation,
    call: ApiCall,
    answer: S,
  ): Promise<ApiAnswer<z.output<S>>> {
    const { method, path } = API_OPERATIONS[operation];
    const url =
      this.#base + path.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(call.params?.[k] ?? ''));
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) query.set(k, v);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.token}`,
      accept: 'application/json',
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.ifMatch !== undefined) headers['if-match'] = call.ifMatch;
    let res: Response;
    let text: string;
    try {
      res = await fetch(query.size === 0 ? url : `${url}?${query}`, {
        method,
        headers,
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.timeout(Math.max(this.#options.timeoutMs, call.timeoutMs ?? 0)),
        redirect: 'error',
      });
      text = await boundedText(res, operation);
    } catch (err) {
      if (err instanceof ApiClientError) throw err;
      const timeout = err instanceof Error && err.name === 'TimeoutError';
      // A URL in the message (the base, or one fetch's error quotes) shows no query values.
      throw new ApiClientError(
        timeout ? 'timeout' : 'unreachable',
        redactUrlText(
          timeout
            ? `${method} ${path}: no answer from ${this.#base} within ${this.#options.timeoutMs} ms`
            : `${method} ${path}: cannot reach ${this.#base}: ${describe(err)}`,
        ),
        { operation, canRetry: true, cause: err },
      );
    }
    const status = res.status;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ApiClientError(
        'invalid_answer',
        `${method} ${path} answered ${status} with a body that is not JSON`,
        {
          operation,
          status,
          canRetry: status >= 500,
        },
      );
    }
    if (status < 200 || status > 299) throw errorOf(operation, status, json, res.headers.get('retry-after'));
    const parsed = answer.safeParse(json);
    if (!parsed.success)
      throw new ApiClientError(
        'invalid_answer',
        `${method} ${path} answered ${status} with a body its schema does not describe (client and server differ)`,
        {
          operation,
          status,
          details: parsed.error.issues
            .slice(0, 10)
            .map((i) => ({ path: i.path.join('.'), message: i.message })),
        },
      );
    return { status, etag: res.headers.get('etag'), body: parsed.data };
  }
}

function errorOf(
  operation: ApiOperation,
  status: number,
  json: unknown,
  retryAfter: string | null,
): ApiClientError {
  const retryAfterMs = retryAfterMsOf(retryAfter);
  const canRetry = status === 429 || status === 502 || status === 503 || status === 504;
  const body = ErrorBody.safeParse(json);
  if (!body.success)
    return new ApiClientError(
      'invalid_answer',
      `${API_OPERATIONS[operation].path} answered ${status} without the API's error shape`,
      {
        operation,
        status,
        canRetry,
        retryAfterMs,
      },
    );
  const { code, message, details } = body.data.error;
  return new ApiClientError(code, message, {
    operation,
    status,
    canRetry: canRetry || RETRYABLE_CODES.has(code),
    details: details ?? [],
    retryAfterMs,
  });
}

/** The answer's body as text, refused past MAX_ANSWER_BYTES however it is sent (chunked or not). */
async function boundedText(res: Response, operation: ApiOperation): Promise<string> {
  const tooLarge = () =>
    new ApiClientError('invalid_answer', `an answer larger than ${MAX_ANSWER_BYTES} bytes`, {
      operation,
      status: res.status,
    });
  if (Number(res.headers.get('content-length') ?? 0) > MAX_ANSWER_BYTES) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (res.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Retry-After as seconds or an HTTP date, in ms, at most an hour; null when absent or unreadable. */
export function retryAfterMsOf(value: string | null, nowMs = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - nowMs;
  if (!Number.isFinite(ms)) return null;
  return Math.min(3_600_000, Math.max(0, Math.ceil(ms)));
}

/** Whether a URL that parses names no user and no password (one that does not parse: left to z.url). */
function withoutUserInfo(url: string): boolean {
  if (!URL.canParse(url)) return true;
  const parsed = new URL(url);
  return parsed.username === '' && parsed.password === '';
}

function describe(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return err instanceof Error ? `${err.message}${cause}` : String(err);
}
