import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoginThrottle, type LoginThrottleOptions, readForm, STYLESHEET } from '@hookstream/console';
import { HookstreamError, type LogFn } from '@hookstream/contracts';
import { TokenRateLimiter } from '@hookstream/ingress-http';
import { ManagementError } from '@hookstream/management';
import type { PortalLinkBook } from './link-book.ts';
import { csrfTokenOf, parseLinkToken } from './link-secret.ts';
import { problemPage } from './pages/notices-page.ts';
import { PORTAL_STYLESHEET_PATH, type PortalFrame } from './pages/portal-layout.ts';
import { PortalAccess } from './portal-access.ts';
import type { PortalBackend } from './portal-backend.ts';
import { PortalHeaders } from './portal-response.ts';
import { PortalRoutes } from './portal-routes.ts';

export const PORTAL_PATH_PREFIX = '/portal/';
export const DEFAULT_PORTAL_RATE = 20;

export interface PortalServerOptions {
  readonly links: PortalLinkBook;
  readonly backend: PortalBackend;
  /** Origins that may frame the portal (`https://app.example.com`); none: nothing may. */
  readonly frameAncestors?: readonly string[];
  /** Origins a form may be posted from besides the request's own Host (behind a proxy). */
  readonly publicOrigins?: readonly string[];
  /** Requests per second per link (and as many at once after a quiet second). */
  readonly ratePerSecond?: number;
  /** Links that do not open, per client address: past it, 429 before any is looked up. */
  readonly openThrottle?: LoginThrottleOptions;
  readonly log?: LogFn;
}

const PORTAL_CSS = `${STYLESHEET}
.notice { background: #dafbe1; padding: .5em .8em; }
.message-failed { color: #cf222e; font-weight: 600; }
.message-pending { color: #9a6700; }
.message-delivered { color: #1a7f37; }
td pre { white-space: pre-wrap; word-break: break-all; max-width: 48em; margin: 0; }
`;

/**
 * The portal's pages under `/portal/<link token>/…`, answered inside the API's server. The link
 * in the path is the credential: no cookie, so the portal works framed by another site, where
 * browsers hold back third-party cookies. Every POST must come from the portal's own origin and
 * carry the link's CSRF token.
 */
export class PortalServer {
  readonly #options: PortalServerOptions;
  readonly #headers: PortalHeaders;
  readonly #routes: PortalRoutes;
  readonly #throttle: LoginThrottle;
  readonly #limiter: TokenRateLimiter;
  readonly #origins: ReadonlySet<string>;

  constructor(options: PortalServerOptions) {
    this.#options = options;
    this.#headers = new PortalHeaders(options.frameAncestors ?? []);
    this.#routes = new PortalRoutes(options.backend, this.#headers);
    this.#throttle = new LoginThrottle(options.openThrottle);
    const rate = options.ratePerSecond ?? DEFAULT_PORTAL_RATE;
    this.#limiter = new TokenRateLimiter({ perSecond: rate, burst: Math.max(1, Math.ceil(rate)) });
    this.#origins = new Set((options.publicOrigins ?? []).map((o) => new URL(o).origin));
  }

  /** Whether a request's path is the portal's. */
  static serves(path: string): boolean {
    return path.startsWith(PORTAL_PATH_PREFIX);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let frame: PortalFrame | null = null;
    try {
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://portal.invalid');
      if (method === 'GET' && url.pathname === PORTAL_STYLESHEET_PATH) {
        this.#headers.send(res, 200, PORTAL_CSS, 'text/css; charset=utf-8');
        return;
      }
      if (method !== 'GET' && method !== 'POST') {
        this.#headers.send(res, 405, 'method not allowed\n', 'text/plain; charset=utf-8', {
          allow: 'GET, POST',
        });
        return;
      }
      const [token = '', ...rest] = url.pathname.slice(PORTAL_PATH_PREFIX.length).split('/').map(decode);
      const opened = this.#open(req, res, token);
      if (opened === null) return;
      const access = new PortalAccess(opened.link);
      frame = {
        base: `${PORTAL_PATH_PREFIX}${token}`,
        csrf: csrfTokenOf(opened.secret),
        tenant: access.link.tenant,
        canManage: access.canManage,
      };
      const wait = this.#limiter.take(access.link.id);
      if (wait > 0) {
        this.#headers.send(
          res,
          429,
          'too many requests for this link; try again shortly\n',
          'text/plain; charset=utf-8',
          {
            'retry-after': String(Math.ceil(wait)),
          },
        );
        return;
      }
      let form = new URLSearchParams();
      if (method === 'POST') {
        if (!this.#sameOrigin(req)) {
          this.#headers.html(
            res,
            403,
            problemPage(frame, 'Refused', 'A form must be sent from the portal’s own pages.'),
          );
          return;
        }
        form = await readForm(req);
        if (form.get('csrf') !== frame.csrf) {
          this.#headers.html(
            res,
            403,
            problemPage(frame, 'Refused', 'The form’s CSRF token is missing or wrong: reload the page.'),
          );
          return;
        }
      }
      const path = rest[rest.length - 1] === '' ? rest.slice(0, -1) : rest;
      const route = this.#routes.match(method, path);
      if (route === null) {
        this.#headers.html(res, 404, problemPage(frame, 'Not found', 'There is no such page.'));
        return;
      }
      await route.handler({ access, frame, url, form, params: route.params, res });
    } catch (err) {
      this.#fail(res, err, frame);
    }
  }

  /** The link the token opens; otherwise the refusal is answered and null returned. */
  #open(req: IncomingMessage, res: ServerResponse, token: string) {
    const address = req.socket.remoteAddress ?? 'unknown';
    const refused = this.#throttle.refused(address);
    if (!refused.allowed) {
      this.#headers.send(
        res,
        429,
        'too many invalid portal links from this address; try again later\n',
        'text/plain; charset=utf-8',
        {
          'retry-after': String(refused.retryAfterSeconds),
        },
      );
      return null;
    }
    const link = this.#options.links.open(token);
    const parts = parseLinkToken(token);
    if (link === null || parts === null) {
      const verdict = this.#throttle.take(address);
      if (!verdict.allowed && verdict.firstRefusal)
        this.#options.log?.('warn', 'portal links throttled for a client address', { address });
      this.#headers.html(
        res,
        403,
        problemPage(
          null,
          'This link does not open the portal',
          'It has expired or been revoked, or it was never valid. Ask for a new one where you found it.',
        ),
      );
      return null;
    }
    return { link, secret: parts.secret };
  }

  /** A POST's Origin: the page's own (the Host it was sent to), or a configured public origin. */
  #sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined || origin === 'null') return false;
    if (this.#origins.has(origin)) return true;
    try {
      const parsed = new URL(origin);
      return (
        parsed.host === req.headers.host && (parsed.protocol === 'http:' || parsed.protocol === 'https:')
      );
    } catch {
      return false;
    }
  }

  #fail(res: ServerResponse, err: unknown, frame: PortalFrame | null): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof ManagementError) {
      this.#headers.html(
        res,
        err.status,
        problemPage(frame, err.status === 404 ? 'Not found' : 'Not done', err.message),
      );
      return;
    }
    if (err instanceof HookstreamError && !err.canRetry) {
      this.#headers.html(res, 400, problemPage(frame, 'Not done', err.message));
      return;
    }
    this.#options.log?.('error', 'portal request failed', {
      error: err instanceof Error ? err.message : String(err),
    });
    this.#headers.html(
      res,
      503,
      problemPage(frame, 'Not available', 'The portal could not answer this request; try again shortly.'),
    );
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
