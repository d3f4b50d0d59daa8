import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeErrorChain } from '@hookstream/contracts';
import { HttpError, readBody, refuseComplexJson, TokenRateLimiter } from '@hookstream/ingress-http';
import { ManagementError, type ManagementService, managementErrorOf } from '@hookstream/management';
import type { ApiTokens } from './api-tokens.ts';
import { BODY_JSON_LIMITS } from './body-limits.ts';
import { IF_MATCH_PATTERN, openApiDocument } from './openapi.ts';
import { type PortalLinksPort, portalLinkRoutes } from './portal-link-routes.ts';
import { RawJson, type Route } from './route.ts';
import { Router } from './router.ts';
import { managementRoutes } from './routes.ts';

/** The largest body the API reads (a definition is a few KiB; its headers at most 8 KiB each). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
export const DEFAULT_API_RATE = 50;
/** Seconds a client waits after a 503 before trying again. */
const RETRY_AFTER_S = 5;

export interface ApiServerOptions {
  readonly service: ManagementService;
  readonly tokens: ApiTokens;
  readonly host: string;
  readonly port: number;
  /** Requests per second per token (and as many at once after a quiet second). */
  readonly ratePerSecond?: number;
  /** The rate limiter's clock, monotonic ms (default performance.now); tests pass their own. */
  readonly now?: () => number;
  readonly bodyLimit?: number;
  readonly version?: string;
  /**
   * The customer portal: its link routes under /v1/portal-links and its pages under /portal/,
   * answered by `pages`. `publicUrl`: where customers' browsers reach this server (default: the
   * address it listens on), the start of every minted link's URL.
   */
  readonly portal?: {
    readonly links: PortalLinksPort;
    readonly pages: { handle(req: IncomingMessage, res: ServerResponse): Promise<void> };
    readonly publicUrl?: string;
  };
  /** Each request as answered, and failures of the server's own (500s). */
  readonly log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
}

/**
 * The management API on node:http, as the ingress serves: its error shape, its body limit and
 * its token table; one route table (routes.ts) for dispatch and the OpenAPI document.
 */
export class ApiServer {
  readonly #options: ApiServerOptions;
  readonly #routes: readonly Route[];
  readonly #router: Router;
  readonly #limiter: TokenRateLimiter;
  readonly #server: Server;
  #document: unknown = null;
  #url = '';

  constructor(options: ApiServerOptions) {
    this.#options = options;
    const rate = options.ratePerSecond ?? DEFAULT_API_RATE;
    this.#limiter = new TokenRateLimiter({
      perSecond: rate,
      burst: Math.max(1, Math.ceil(rate)),
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    const portal = options.portal;
    this.#routes = [
      ...managementRoutes(options.service, () => this.document()),
      ...(portal === undefined ? [] : portalLinkRoutes(portal.links, () => portal.publicUrl ?? this.#url)),
    ];
    this.#router = new Router(this.#routes);
    // Node's 16 KiB header limit answers 431 before a route sees the request; a long query is
    // a 400 of its own parameter instead (the document's answer), up to this size.
    this.#server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
      void this.#handle(req, res);
    });
    this.#server.requestTimeout = 30_000;
    this.#server.headersTimeout = 10_000;
  }

  /** The OpenAPI document, built once from the route table. */
  document(): unknown {
    this.#document ??= openApiDocument(this.#routes, { version: this.#options.version ?? '0.1.0' });
    return this.#document;
  }

  /** Listens; resolves to the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port, this.#options.host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const { address, port } = this.#server.address() as AddressInfo;
    this.#url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
    return this.#url;
  }

  /** Stops taking requests, lets those in flight finish, then waits for replay jobs. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeIdleConnections();
    });
    await this.#options.service.settled();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const portal = this.#options.portal;
    if (portal !== undefined && (req.url ?? '').startsWith(PORTAL_PREFIX)) {
      const started = performance.now();
      await portal.pages.handle(req, res);
      // The path holds the link's secret: the log names the link by its id only.
      this.#options.log?.('info', 'request', {
        method: req.method ?? 'GET',
        path: portalLogPath(req.url ?? ''),
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      });
      return;
    }
    const started = performance.now();
    const method = req.method ?? 'GET';
    let path = '?';
    let status = 500;
    let allow: readonly string[] = [];
    let tokenId: string | null = null;
    try {
      const url = new URL(req.url ?? '/', 'http://api.invalid');
      path = url.pathname;
      const match = this.#router.match(method, path);
      if (match.kind === 'none') throw new HttpError(404, 'not_found', `no route ${path}`);
      if (match.kind === 'method') {
        allow = match.allow;
        throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}`, {
          details: [{ allow: match.allow }],
        });
      }
      const { route, params } = match;
      const caller = this.#options.tokens.authorize(req.headers.authorization);
      tokenId = caller?.id ?? null;
      if (caller === null && !route.public)
        throw new HttpError(401, 'unauthorized', 'a bearer token of HOOKSTREAM_API_TOKENS is required');
      if (caller !== null) {
        const wait = this.#limiter.take(caller.id);
        if (wait > 0)
          throw new HttpError(429, 'rate_limited', 'past the rate limit of this token', {
            retryAfterS: wait,
          });
      }
      const query: Record<string, string> = {};
      for (const [k, v] of url.searchParams) {
        if (k in query) throw new HttpError(400, 'invalid_request', `query parameter ${k} given twice`);
        query[k] = v;
      }
      const ifMatch = headerValue(req.headers['if-match']);
      if (ifMatch !== undefined && (method === 'PUT' || method === 'DELETE') && !IF_MATCH.test(ifMatch))
        throw new HttpError(
          400,
          'invalid_request',
          'If-Match: "*" or quoted ETags, as this API answers them',
        );
      const body = route.body === undefined ? undefined : await this.#body(req);
      const gone = new AbortController();
      res.on('close', () => {
        if (!res.writableFinished) gone.abort();
      });
      const answer = await route.run({
        signal: gone.signal,
        // Only a public route runs without a token; the one there is (the document) reads no caller.
        caller: caller ?? { scope: { kind: 'operator' }, id: 'public' },
        params,
        query,
        body,
        ifMatch,
      });
      status = answer.status;
      send(res, answer.status, answer.body, answer.headers);
    } catch (err) {
      const http = this.#httpError(err);
      status = http.status;
      if (status >= 500)
        this.#options.log?.('error', 'request failed', { method, path, error: describeErrorChain(err) });
      send(res, http.status, http.body(), {
        ...(http.retryAfterS === null ? {} : { 'retry-after': String(http.retryAfterS) }),
        ...(http.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
        // RFC 9110: a 405 lists the methods the resource takes.
        ...(http.status === 405 ? { allow: allow.join(', ') } : {}),
      });
    } finally {
      // Who asked, by token id (never the token), as `tokenId`: the logger redacts every field
      // named `token`. Reads that change nothing are in this log only (a secret's read is also
      // an audit record).
      this.#options.log?.('info', 'request', {
        method,
        path,
        status,
        ...(tokenId === null ? {} : { tokenId }),
        ms: Math.round(performance.now() - started),
      });
    }
  }

  async #body(req: IncomingMessage): Promise<unknown> {
    const raw = await readBody(req, this.#options.bodyLimit ?? DEFAULT_BODY_LIMIT);
    if (raw.length === 0) return undefined;
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      throw new HttpError(415, 'unsupported_media_type', 'a body must be application/json');
    refuseComplexJson(raw, BODY_JSON_LIMITS);
    try {
      return JSON.parse(raw.toString('utf8'));
    } catch {
      throw new HttpError(400, 'invalid_json', 'the body is not JSON');
    }
  }

  #httpError(err: unknown): HttpError {
    if (err instanceof HttpError) return err;
    const m = err instanceof ManagementError ? err : managementErrorOf(err);
    return new HttpError(m.status, m.code, m.message, {
      details: m.details,
      ...(m.status === 503 ? { retryAfterS: RETRY_AFTER_S } : {}),
    });
  }
}

const PORTAL_PREFIX = '/portal/';

/** `/portal/pl_x.secret/messages` as `/portal/pl_x/messages`. */
function portalLogPath(url: string): string {
  const path = url.split('?')[0] ?? '';
  return path.replace(/^\/portal\/(pl_[A-Za-z0-9]+)[^/]*/, '/portal/$1');
}

/** Request line and headers together, at most. */
const MAX_HEADER_BYTES = 128 * 1024;
const IF_MATCH = new RegExp(IF_MATCH_PATTERN);

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
) {
  const text = body instanceof RawJson ? body.text : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
