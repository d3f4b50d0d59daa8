import type { IncomingMessage, ServerResponse } from 'node:http';
import { PublishBatchRequest } from '@hookstream/contracts';
import type { EventProducer, PreparedEvent, PublishResult } from '@hookstream/producer';
import { HttpError, httpErrorFor } from './http-error.ts';
import { readBody } from './read-body.ts';
import type { TokenGrant, TokenTable } from './token-table.ts';

export interface IngressHttpOptions {
  readonly producer: EventProducer;
  /** null: demo mode, every request may publish every type without a token. */
  readonly tokens: TokenTable | null;
  readonly maxBodyBytes: number;
  /** Seconds a client should wait after a 503. */
  readonly retryAfterS: number;
  /** Kafka and registry reachable? Called by GET /readyz. */
  readonly checkReady: () => Promise<Readonly<Record<string, boolean>>>;
  /** Told about unexpected failures (answered 500) and 503s. */
  readonly onError?: (err: unknown, req: IncomingMessage) => void;
}

const ALL_TYPES: TokenGrant = { types: null };

/** Routes and answers the ingress's HTTP requests; no state beyond a draining flag. */
export class IngressHttp {
  readonly #options: IngressHttpOptions;
  #draining = false;

  constructor(options: IngressHttpOptions) {
    this.#options = options;
  }

  /** From now on /readyz answers 503, so load balancers stop sending before shutdown. */
  drain(): void {
    this.#draining = true;
  }

  /** The `request` listener of a node:http server. Never throws. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.#route(req, res).catch((err: unknown) => {
      const error = httpErrorFor(err, this.#options.retryAfterS);
      if (error.status >= 500) this.#options.onError?.(err, req);
      send(res, error.status, error.body(), error.retryAfterS, !req.complete);
    });
  };

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?', 1)[0];
    switch (path) {
      case '/healthz':
        allow(req, 'GET');
        return send(res, 200, { status: 'ok' });
      case '/readyz':
        allow(req, 'GET');
        return this.#ready(res);
      case '/v1/events': {
        const { grant, body } = await this.#intake(req);
        return this.#publishOne(req, res, grant, body);
      }
      case '/v1/events/batch': {
        const { grant, body } = await this.#intake(req);
        return this.#publishBatch(req, res, grant, body);
      }
      default:
        throw new HttpError(404, 'not_found', `no route ${path}`);
    }
  }

  async #ready(res: ServerResponse): Promise<void> {
    const checks = this.#draining ? { draining: false } : await this.#options.checkReady();
    const ready = Object.values(checks).every(Boolean);
    send(res, ready ? 200 : 503, { ready, checks }, ready ? null : this.#options.retryAfterS);
  }

  /** Auth, content type, size and JSON, in that order: each refusal happens before any write. */
  async #intake(req: IncomingMessage): Promise<{ grant: TokenGrant; body: unknown }> {
    allow(req, 'POST');
    const grant =
      this.#options.tokens === null ? ALL_TYPES : this.#options.tokens.authorize(req.headers.authorization);
    if (grant === null)
      throw new HttpError(401, 'unauthorized', 'a valid Authorization: Bearer <token> is required');
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      throw new HttpError(415, 'unsupported_media_type', 'send the event as Content-Type: application/json');
    }
    const raw = await readBody(req, this.#options.maxBodyBytes);
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
  ): Promise<void> {
    forbidUnlessAllowed(grant, body);
    const prepared = this.#options.producer.prepare(body);
    const [result] = await this.#options.producer.publishPrepared([prepared], traceparentOf(req));
    const r = result as PublishResult;
    send(res, r.duplicate ? 200 : 202, resultBody(r));
  }

  async #publishBatch(
    req: IncomingMessage,
    res: ServerResponse,
    grant: TokenGrant,
    body: unknown,
  ): Promise<void> {
    const batch = PublishBatchRequest.safeParse(body);
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
        prepared.push(this.#options.producer.prepare(item));
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
    const results = await this.#options.producer.publishPrepared(prepared, traceparentOf(req));
    send(res, 202, { results: results.map(resultBody) });
  }
}

function allow(req: IncomingMessage, method: string): void {
  if (req.method !== method) throw new HttpError(405, 'method_not_allowed', `use ${method}`);
}

function forbidUnlessAllowed(grant: TokenGrant, body: unknown): void {
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  if (grant.types !== null && typeof type === 'string' && !grant.types.has(type)) {
    throw new HttpError(403, 'forbidden_type', `this token may not publish '${type}'`);
  }
}

function traceparentOf(req: IncomingMessage): string | undefined {
  const value = req.headers.traceparent;
  return typeof value === 'string' ? value : undefined;
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
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(retryAfterS === null ? {} : { 'retry-after': String(retryAfterS) }),
    ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    // An unread body would be taken for the next request on this connection.
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}
