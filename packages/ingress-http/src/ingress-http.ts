import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNoticeType, MAX_BATCH_EVENTS, PublishBatchRequest } from '@hookstream/contracts';
import {
  type EventProducer,
  type PreparedEvent,
  PublishError,
  type PublishPreparedOptions,
  type PublishResult,
} from '@hookstream/producer';
import { INGRESS_HTTP_TRACER_NAME, type Logger, type Metrics, RequestSpan } from '@hookstream/telemetry';
import { context, trace } from '@opentelemetry/api';
import { HttpError, httpErrorFor } from './errors.ts';
import { IngressMetrics } from './ingress-metrics.ts';
import { refuseComplexJson } from './json-shape.ts';
import { readBody } from './read-body.ts';
import { ReadinessCache } from './readiness-cache.ts';
import { TokenRateLimiter } from './token-rate-limiter.ts';
import type { TokenGrant, TokenTable } from './token-table.ts';

export interface IngressHttpOptions {
  readonly producer: EventProducer;
  /** null: demo mode, every request may publish every type without a token. */
  readonly tokens: TokenTable | null;
  readonly maxBodyBytes: number;
  /** Seconds a client should wait after a 503. */
  readonly retryAfterS: number;
  /** Kafka and registry reachable? Run for GET /readyz, at most one at a time, cached readyTtlMs. */
  readonly checkReady: () => Promise<Readonly<Record<string, boolean>>>;
  /** How long a readiness answer is reused (default 1000 ms). */
  readonly readyTtlMs?: number;
  /**
   * Per-token request rate; beyond it 429 with Retry-After. None: unlimited. `now`: the limiter's
   * clock in monotonic ms (default performance.now); tests pass their own.
   */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number; readonly now?: () => number };
  /** Told about unexpected failures (answered 500) and 503s. */
  readonly onError?: (err: unknown, req: IncomingMessage) => void;
  /** Accepted events (debug) and rejected requests (info, or warn for 5xx), ids and codes only. */
  readonly logger?: Logger;
  /**
   * Records the ingress's instruments when given. GET /metrics is not served here: the
   * service serves it on a listener of its own, off the public port.
   */
  readonly metrics?: Metrics;
}

/**
 * How deep a publish body may nest: the batch wraps an event in two levels and the envelope in
 * one, so event data may nest about 125 deep, well past real documents (a few to a few dozen).
 * Deeper is refused (400 body_too_deep) before JSON.parse and the schema checks after it, whose
 * cost and stack grow with the depth. The number of values is not bounded here: event data may
 * be long lists, and the byte limit (INGRESS_MAX_BODY_BYTES) bounds their linear cost.
 */
export const MAX_EVENT_JSON_DEPTH = 128;
const EVENT_JSON_LIMITS = { maxDepth: MAX_EVENT_JSON_DEPTH, maxValues: null } as const;

/** Routes that publish: they get a SERVER span and count in the metrics. */
const PUBLISH_ROUTES = new Set(['/v1/events', '/v1/events/batch']);
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What one publish request learned, for its log line, metrics and span. */
interface RequestState {
  readonly receivedAt: number;
  readonly route: string;
  eventIds: readonly string[];
}

/** Demo mode: every request is one producer that may publish every type. */
const ALL_TYPES: TokenGrant = { types: null, tenant: null, producer: 'demo' };

/** Routes and answers the ingress's HTTP requests; no state beyond a draining flag. */
export class IngressHttp {
  readonly #options: IngressHttpOptions;
  readonly #metrics: IngressMetrics | undefined;
  readonly #tracer = trace.getTracer(INGRESS_HTTP_TRACER_NAME);
  readonly #readiness: ReadinessCache;
  readonly #limiter: TokenRateLimiter | undefined;
  #draining = false;

  constructor(options: IngressHttpOptions) {
    this.#options = options;
    this.#metrics = options.metrics ? new IngressMetrics(options.metrics.meter) : undefined;
    this.#readiness = new ReadinessCache(options.checkReady, options.readyTtlMs ?? 1000);
    this.#limiter = options.rateLimit ? new TokenRateLimiter(options.rateLimit) : undefined;
  }

  /** From now on /readyz answers 503, so load balancers stop sending before shutdown. */
  drain(): void {
    this.#draining = true;
  }

  /** The `request` listener of a node:http server. Never throws. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const state: RequestState = { receivedAt: performance.now(), route: path, eventIds: [] };
    if (!PUBLISH_ROUTES.has(path)) {
      void this.#serve(req, res, path, state, undefined);
      return;
    }
    // The caller's W3C context (if any) is the parent; the producer's publish spans are children.
    const method = KNOWN_METHODS.has(req.method ?? '') ? (req.method as string) : '_OTHER';
    const span = new RequestSpan(this.#tracer, method, path, req.headers);
    void context.with(span.context, () => this.#serve(req, res, path, state, span));
  };

  /** Answers one request and records its outcome; runs inside the request span's context. */
  async #serve(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    state: RequestState,
    span: RequestSpan | undefined,
  ): Promise<void> {
    try {
      await this.#route(req, res, path, state);
    } catch (err) {
      const error = httpErrorFor(err, this.#options.retryAfterS);
      if (error.status >= 500) this.#options.onError?.(err, req);
      send(res, error.status, error.body(), error.retryAfterS, !req.complete);
      this.#rejected(error, state, span);
    } finally {
      span?.end(res.statusCode);
    }
  }

  #rejected(error: HttpError, state: RequestState, span: RequestSpan | undefined): void {
    this.#metrics?.rejected(error.code, error.status);
    span?.refused(error.code, error.status >= 500);
    // Codes and ids only: messages can quote the request body (e.g. JSON parse errors).
    const line = { code: error.code, status: error.status, event_ids: state.eventIds };
    if (error.status >= 500) {
      this.#options.logger?.warn(line, 'request refused');
    } else {
      this.#options.logger?.info(line, 'request refused');
    }
  }

  /** One debug line per accepted event; skipped outright unless debug is on (hot path). */
  #accepted(
    prepared: readonly PreparedEvent[],
    results: readonly PublishResult[],
    state: RequestState,
  ): void {
    const metrics = this.#metrics;
    metrics?.produced(state.route, (performance.now() - state.receivedAt) / 1000);
    const log = this.#options.logger?.isLevelEnabled('debug') ? this.#options.logger : undefined;
    // Counted per type and outcome, one add each: the SDK hashes the attributes on every add.
    let counts: Map<string, { accepted: number; duplicate: number }> | undefined;
    results.forEach((r, i) => {
      const type = prepared[i]?.type ?? 'unknown';
      if (metrics !== undefined) {
        counts ??= new Map();
        let count = counts.get(type);
        if (count === undefined) {
          count = { accepted: 0, duplicate: 0 };
          counts.set(type, count);
        }
        if (r.duplicate) count.duplicate += 1;
        else count.accepted += 1;
      }
      log?.debug(
        { event_id: r.eventId, type, duplicate: r.duplicate, partition: r.partition, offset: r.offset },
        'accepted',
      );
    });
    if (metrics !== undefined && counts !== undefined) {
      for (const [type, count] of counts) {
        if (count.accepted > 0) metrics.accepted(type, false, count.accepted);
        if (count.duplicate > 0) metrics.accepted(type, true, count.duplicate);
      }
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse, path: string, state: RequestState): Promise<void> {
    switch (path) {
      case '/healthz':
        allow(req, 'GET');
        return send(res, 200, { status: 'ok' });
      case '/readyz':
        allow(req, 'GET');
        return this.#ready(res);
      case '/v1/events': {
        const { grant, body } = await this.#intake(req);
        return this.#publishOne(req, res, grant, body, state);
      }
      case '/v1/events/batch': {
        const { grant, body } = await this.#intake(req);
        return this.#publishBatch(req, res, grant, body, state);
      }
    }
    throw new HttpError(404, 'not_found', `no route ${path}`);
  }

  async #ready(res: ServerResponse): Promise<void> {
    const checks = this.#draining ? { draining: false } : await this.#readiness.check();
    const ready = Object.values(checks).every(Boolean);
    send(res, ready ? 200 : 503, { ready, checks }, ready ? null : this.#options.retryAfterS);
  }

  /** Auth, content type, size, depth and JSON, in that order: each refusal happens before any write. */
  async #intake(req: IncomingMessage): Promise<{ grant: TokenGrant; body: unknown }> {
    allow(req, 'POST');
    const grant =
      this.#options.tokens === null ? ALL_TYPES : this.#options.tokens.authorize(req.headers.authorization);
    if (grant === null)
      throw new HttpError(401, 'unauthorized', 'a valid Authorization: Bearer <token> is required');
    const waitS = this.#limiter?.take(grant.producer) ?? 0;
    if (waitS > 0) {
      throw new HttpError(429, 'rate_limited', 'this token sends more requests than its rate allows', {
        retryAfterS: waitS,
      });
    }
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      throw new HttpError(415, 'unsupported_media_type', 'send the event as Content-Type: application/json');
    }
    const raw = await readBody(req, this.#options.maxBodyBytes);
    refuseComplexJson(raw, EVENT_JSON_LIMITS);
    try {
      return { grant, body: JSON.parse(raw.toString('utf8')) };
    } catch (err) {
      throw new HttpError(400, 'malformed_json', `the body is not JSON: ${(err as Error).message}`);
    }
  }

  async #publishOne(
    req: IncomingMessage,
    res: ServerResponse,
    grant: TokenGrant,
    body: unknown,
    state: RequestState,
  ): Promise<void> {
    forbidUnlessAllowed(grant, body);
    const prepared = this.#options.producer.prepare(body, grant.tenant ?? undefined);
    state.eventIds = [prepared.id];
    const results = await this.#options.producer.publishPrepared([prepared], publishOptions(req, grant));
    const r = results[0] as PublishResult;
    send(res, r.duplicate ? 200 : 202, resultBody(r));
    this.#accepted([prepared], results, state);
  }

  async #publishBatch(
    req: IncomingMessage,
    res: ServerResponse,
    grant: TokenGrant,
    body: unknown,
    state: RequestState,
  ): Promise<void> {
    const batch = plainBatch(body) ?? PublishBatchRequest.safeParse(body);
    if (!batch.success) {
      const issue = batch.error.issues[0];
      throw new HttpError(
        400,
        'invalid_request',
        `invalid batch: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      );
    }
    const prepared: PreparedEvent[] = [];
    const errors: {
      index: number;
      status: number;
      code: string;
      message: string;
      details?: readonly unknown[];
    }[] = [];
    batch.data.events.forEach((item, index) => {
      try {
        forbidUnlessAllowed(grant, item);
        prepared.push(this.#options.producer.prepare(item, grant.tenant ?? undefined));
      } catch (err) {
        const e = httpErrorFor(err, this.#options.retryAfterS);
        errors.push({
          index,
          status: e.status,
          code: e.code,
          message: e.message,
          ...(e.details.length ? { details: e.details } : {}),
        });
      }
    });
    if (errors.length > 0) {
      // All valid or none written.
      const status = errors.some((e) => e.status === 403) ? 403 : 400;
      throw new HttpError(
        status,
        'invalid_batch',
        `${errors.length} of ${batch.data.events.length} events refused; none written`,
        {
          details: errors,
        },
      );
    }
    state.eventIds = prepared.map((e) => e.id);
    let results: PublishResult[];
    try {
      results = await this.#options.producer.publishPrepared(prepared, publishOptions(req, grant));
    } catch (err) {
      // The producer numbers a call's events; here they are the batch's `events`.
      if (err instanceof PublishError && err.code === 'ID_CONFLICT') {
        throw new HttpError(409, 'id_conflict', err.message, {
          details: err.details.map((d) => ({ ...d, path: `events${d.path}` })),
        });
      }
      throw err;
    }
    send(res, 202, { results: results.map(resultBody) });
    this.#accepted(prepared, results, state);
  }
}

/**
 * The batch as PublishBatchRequest would parse it, when it plainly passes (a JSON object whose
 * only member is an array of 1 to MAX_BATCH_EVENTS items); anything else goes to the zod
 * schema, which keeps the rules and the messages. Each item is checked on its own later.
 */
function plainBatch(body: unknown): { success: true; data: { events: unknown[] } } | undefined {
  if (typeof body !== 'object' || body === null || Object.getPrototypeOf(body) !== Object.prototype) return;
  for (const name in body) if (name !== 'events') return;
  const events = (body as { events?: unknown }).events;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_BATCH_EVENTS) return;
  return { success: true, data: { events } };
}

function allow(req: IncomingMessage, method: string): void {
  if (req.method !== method) throw new HttpError(405, 'method_not_allowed', `use ${method}`);
}

/**
 * The types hookstream emits first, for every token: a notice announces what hookstream did, so
 * one from outside would announce something that did not happen. Then the token's own types,
 * then its tenant: a tenant-bound token publishes as its tenant only (a request may name it or
 * leave it out; the producer fills it in). A tenant that is not a string is zod's to refuse.
 */
function forbidUnlessAllowed(grant: TokenGrant, body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const type = (body as { type?: unknown }).type;
  if (typeof type === 'string' && isNoticeType(type))
    throw new HttpError(403, 'reserved_type', `'${type}' is reserved: only hookstream publishes it`);
  if (grant.types !== null && typeof type === 'string' && !grant.types.has(type)) {
    throw new HttpError(403, 'forbidden_type', `this token may not publish '${type}'`);
  }
  if (grant.tenant !== null) {
    const tenant = (body as { tenant?: unknown }).tenant;
    if (typeof tenant === 'string' && tenant !== grant.tenant)
      throw new HttpError(
        403,
        'tenant_forbidden',
        'this token publishes for its own tenant only: name that one, or leave tenant out',
      );
  }
}

function publishOptions(req: IncomingMessage, grant: TokenGrant): PublishPreparedOptions {
  const value = req.headers.traceparent;
  return typeof value === 'string'
    ? { traceparent: value, producer: grant.producer }
    : { producer: grant.producer };
}

function resultBody(r: PublishResult) {
  return { event_id: r.eventId, partition: r.partition, offset: r.offset, duplicate: r.duplicate };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  retryAfterS: number | null = null,
  close = false,
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  // A flat list of names and values: node takes it as is, without walking an object.
  const headers: string[] = [
    'content-type',
    'application/json',
    'content-length',
    String(Buffer.byteLength(text)),
  ];
  if (retryAfterS !== null) headers.push('retry-after', String(retryAfterS));
  if (status === 401) headers.push('www-authenticate', 'Bearer');
  // An unread body would be taken for the next request on this connection.
  if (close) headers.push('connection', 'close');
  res.writeHead(status, headers);
  res.end(text);
}
