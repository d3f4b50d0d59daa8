import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HookstreamError, type LogFn } from '@hookstream/contracts';
import { ManagementError, ReplayJobs } from '@hookstream/management';
import { ConsoleAuth, type ConsoleSession } from './console-auth.ts';
import type { ConsoleBackend } from './console-backend.ts';
import { redirect, send, sendHtml, sendText } from './console-response.ts';
import { ConsoleRoutes } from './console-routes.ts';
import { ConsoleError } from './errors.ts';
import { cookieValue, readForm } from './form-body.ts';
import { LoginThrottle, type LoginThrottleOptions } from './login-throttle.ts';
import { errorPage } from './pages/error-page.ts';
import { STYLESHEET } from './pages/layout.ts';
import { loginPage } from './pages/login-page.ts';
import { RequestGuard } from './request-guard.ts';

export const SESSION_COOKIE = 'hookstream_console';

export interface ConsoleServerOptions {
  readonly backend: ConsoleBackend;
  readonly tokens: readonly string[];
  readonly host: string;
  /** 0: any free port (tests). */
  readonly port: number;
  /** Where the console is reached when not at host:port (behind a proxy), e.g. https://ops.example. */
  readonly publicOrigins?: readonly string[];
  /** How often the subscribers page reloads itself. */
  readonly refreshSeconds?: number;
  /** Logins per client address (the socket's: no proxy header is trusted); default 10 a minute. */
  readonly loginThrottle?: LoginThrottleOptions;
  /** Throttled logins, for the log. */
  readonly log?: LogFn;
  /** A failed request, for the log; the browser gets the error page. */
  readonly onError?: (err: unknown, request: { readonly method: string; readonly path: string }) => void;
}

/**
 * The console over node:http. Every page needs a session (a login with a configured token);
 * every POST needs the console's own Origin and the session's CSRF token in its form.
 */
export class ConsoleServer {
  readonly #options: ConsoleServerOptions;
  readonly #auth: ConsoleAuth;
  readonly #jobs: ReplayJobs;
  readonly #routes: ConsoleRoutes;
  readonly #throttle: LoginThrottle;
  #server: Server | null = null;
  #guard: RequestGuard | null = null;

  constructor(options: ConsoleServerOptions) {
    if (options.tokens.length === 0)
      throw new ConsoleError('BAD_CONFIG', 'the console needs at least one token (CONSOLE_TOKENS)', false);
    this.#options = options;
    this.#auth = new ConsoleAuth({ tokens: options.tokens });
    this.#jobs = new ReplayJobs(options.backend);
    this.#throttle = new LoginThrottle(options.loginThrottle);
    this.#routes = new ConsoleRoutes({
      backend: options.backend,
      jobs: this.#jobs,
      refreshSeconds: options.refreshSeconds ?? 5,
    });
  }

  /** Listens; resolves with the URL it answers on. */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => this.#fail(req, res, err, null));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#options.port, this.#options.host, () => resolve());
    });
    this.#server = server;
    const { port } = server.address() as AddressInfo;
    this.#guard = new RequestGuard({
      host: this.#options.host,
      port,
      ...(this.#options.publicOrigins === undefined ? {} : { publicOrigins: this.#options.publicOrigins }),
    });
    const host = this.#options.host.includes(':') ? `[${this.#options.host}]` : this.#options.host;
    return `http://${host}:${port}`;
  }

  /** Stops listening and waits for running replays, so none is cut between a chunk and its log entry. */
  async close(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server !== null) {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await this.#jobs.settled();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const guard = this.#guard;
    if (guard === null || !guard.hostAllowed(req.headers.host)) {
      sendText(res, 403, 'forbidden: unknown Host');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const method = req.method ?? 'GET';
    if (method === 'POST' && !guard.originAllowed(headerValue(req.headers.origin))) {
      sendText(res, 403, 'forbidden: a POST must come from the console’s own pages (Origin)');
      return;
    }
    if (method === 'GET' && url.pathname === '/console.css') {
      send(res, 200, STYLESHEET, 'text/css; charset=utf-8');
      return;
    }
    if (url.pathname === '/login') {
      await this.#login(req, res, method, guard.reachedOverHttps(req.headers.host));
      return;
    }
    const session = this.#auth.session(cookieValue(req.headers.cookie, SESSION_COOKIE));
    if (session === null) {
      if (method === 'GET') sendHtml(res, 401, loginPage(false));
      else sendText(res, 401, 'unauthenticated: log in first');
      return;
    }
    let form = new URLSearchParams();
    if (method === 'POST') {
      form = await readForm(req);
      if (!this.#auth.checkCsrf(session, form.get('csrf'))) {
        sendText(res, 403, 'forbidden: the form’s CSRF token is missing or wrong (reload the page)');
        return;
      }
      if (url.pathname === '/logout') {
        this.#auth.logout(session.id);
        redirect(res, '/login', { 'set-cookie': clearCookie(guard.reachedOverHttps(req.headers.host)) });
        return;
      }
    }
    const route = this.#routes.match(method, url.pathname);
    if (route === null) {
      if (method !== 'GET' && method !== 'POST') sendText(res, 405, 'method not allowed');
      else
        sendHtml(
          res,
          404,
          errorPage(
            { code: 'NOT_FOUND', message: `no page ${url.pathname}`, canRetry: false },
            session.csrfToken,
          ),
        );
      return;
    }
    try {
      await route.handler({ req, res, url, session, form, params: route.params });
    } catch (err) {
      this.#fail(req, res, err, session);
    }
  }

  async #login(req: IncomingMessage, res: ServerResponse, method: string, secure: boolean): Promise<void> {
    if (method === 'GET') {
      sendHtml(res, 200, loginPage(false));
      return;
    }
    if (method !== 'POST') {
      sendText(res, 405, 'method not allowed');
      return;
    }
    // Before the body is read: a throttled login's token is never compared.
    const address = req.socket.remoteAddress ?? 'unknown';
    const verdict = this.#throttle.take(address);
    if (!verdict.allowed) {
      if (verdict.firstRefusal)
        this.#options.log?.('warn', 'console logins throttled for a client address', {
          address,
          retryAfterSeconds: verdict.retryAfterSeconds,
        });
      send(res, 429, 'too many logins from this address; try again later\n', 'text/plain; charset=utf-8', {
        'retry-after': String(verdict.retryAfterSeconds),
        connection: 'close',
      });
      return;
    }
    const form = await readForm(req);
    const session = this.#auth.login(form.get('token') ?? '');
    if (session === null) {
      sendHtml(res, 401, loginPage(true));
      return;
    }
    redirect(res, '/', { 'set-cookie': sessionCookie(session, secure) });
  }

  #fail(req: IncomingMessage, res: ServerResponse, err: unknown, session: ConsoleSession | null): void {
    this.#options.onError?.(err, { method: req.method ?? '?', path: req.url ?? '?' });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const problem =
      err instanceof HookstreamError
        ? { code: err.code, message: err.message, canRetry: err.canRetry }
        : { code: 'INTERNAL', message: 'the console failed on this request (see its log)', canRetry: true };
    // The management layer's errors carry their status (404 for an unknown subscriber…).
    const status = err instanceof ManagementError ? err.status : statusOf(problem.code, problem.canRetry);
    // Only a read is tried again: a refresh of a POST's answer would send the form again.
    const refresh = problem.canRetry && req.method === 'GET' ? RETRY_REFRESH_SECONDS : undefined;
    sendHtml(res, status, errorPage(problem, session?.csrfToken, refresh));
  }
}

/** How soon a page that failed on a passing problem (Kafka busy or away) tries again by itself. */
const RETRY_REFRESH_SECONDS = 5;

function statusOf(code: string, canRetry: boolean): number {
  if (code === 'NOT_FOUND' || code === 'UNKNOWN_SUBSCRIBER' || code === 'NO_DLQ') return 404;
  if (code === 'BAD_REQUEST' || code === 'BAD_OPTION') return 400;
  if (code === 'TOO_LARGE') return 413;
  return canRetry ? 503 : 500;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it; Secure when the
 * request came to an https public origin: never sent over plain http.
 */
function sessionCookie(session: ConsoleSession, secure: boolean): string {
  const maxAge = Math.max(0, Math.floor((session.expiresAtMs - Date.now()) / 1000));
  return `${SESSION_COOKIE}=${session.id}; ${cookieAttributes(secure)}; Max-Age=${maxAge}`;
}

function clearCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; ${cookieAttributes(secure)}; Max-Age=0`;
}

function cookieAttributes(secure: boolean): string {
  return `HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
}
