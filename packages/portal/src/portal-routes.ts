import type { ServerResponse } from 'node:http';
import type { MessageState } from '@hookstream/api-schemas';
import { segment } from '@hookstream/console';
import { EventSelection } from '@hookstream/contracts';
import { ManagementError } from '@hookstream/management';
import { definitionWith, endpointFields } from './endpoint-form.ts';
import { cataloguePage } from './pages/catalogue-page.ts';
import { endpointPage, formValuesOf, newEndpointPage, secretPage } from './pages/endpoint-page.ts';
import { endpointsPage } from './pages/endpoints-page.ts';
import { messagePage } from './pages/message-page.ts';
import { messagesPage } from './pages/messages-page.ts';
import { noticesPage } from './pages/notices-page.ts';
import type { PortalFrame } from './pages/portal-layout.ts';
import type { PortalAccess } from './portal-access.ts';
import type { MessageQuery, PortalBackend } from './portal-backend.ts';
import type { PortalHeaders } from './portal-response.ts';

/** One request of one link, once it opened and its form (for a POST) passed the CSRF check. */
export interface PortalRequest {
  readonly access: PortalAccess;
  readonly frame: PortalFrame;
  readonly url: URL;
  readonly form: URLSearchParams;
  readonly params: readonly string[];
  readonly res: ServerResponse;
}

type Handler = (r: PortalRequest) => Promise<void>;

interface PortalRoute {
  readonly method: 'GET' | 'POST';
  /** Path segments after the link's token; `*` matches one segment, handed over in `params`. */
  readonly path: readonly string[];
  readonly handler: Handler;
}

const MESSAGE_STATES: ReadonlySet<string> = new Set(['delivered', 'pending', 'failed', 'filtered']);
const PAGE_SIZE = 50;

/** The portal's pages and actions, each over the backend's operations as the link's caller. */
export class PortalRoutes {
  readonly #backend: PortalBackend;
  readonly #headers: PortalHeaders;
  readonly #routes: readonly PortalRoute[];

  constructor(backend: PortalBackend, headers: PortalHeaders) {
    this.#backend = backend;
    this.#headers = headers;
    const get = (path: string, handler: Handler): PortalRoute => ({
      method: 'GET',
      path: split(path),
      handler,
    });
    const post = (path: string, handler: Handler): PortalRoute => ({
      method: 'POST',
      path: split(path),
      handler,
    });
    this.#routes = [
      get('', (r) => this.#endpoints(r)),
      get('endpoints/new', (r) => this.#newEndpoint(r)),
      post('endpoints', (r) => this.#create(r)),
      get('endpoints/*', (r) => this.#endpoint(r)),
      post('endpoints/*', (r) => this.#save(r)),
      post('endpoints/*/pause', (r) => this.#state(r, 'pause')),
      post('endpoints/*/resume', (r) => this.#state(r, 'resume')),
      post('endpoints/*/rotate-secret', (r) => this.#rotate(r)),
      post('endpoints/*/send-example', (r) => this.#sendExample(r)),
      post('endpoints/*/recover', (r) => this.#recover(r)),
      get('catalogue', (r) => this.#catalogue(r)),
      get('messages', (r) => this.#messages(r)),
      get('messages/*', (r) => this.#message(r)),
      post('messages/*/resend', (r) => this.#resend(r)),
      get('notices', (r) => this.#notices(r)),
    ];
  }

  /** The route and its `*` segments, or null. */
  match(method: string, rest: readonly string[]): { handler: Handler; params: string[] } | null {
    for (const route of this.#routes) {
      if (route.method !== method || route.path.length !== rest.length) continue;
      const params: string[] = [];
      if (route.path.every((p, i) => (p === '*' ? params.push(rest[i] as string) > 0 : p === rest[i])))
        return { handler: route.handler, params };
    }
    return null;
  }

  async #endpoints(r: PortalRequest): Promise<void> {
    const cursor = r.url.searchParams.get('cursor') ?? undefined;
    const page = await this.#backend.listSubscribers(r.access.caller, { limit: PAGE_SIZE, cursor });
    const items = page.items.filter((s) => r.access.seesSubscriber(s.name));
    this.#headers.html(
      r.res,
      200,
      endpointsPage(r.frame, { items, nextCursor: page.nextCursor, canCreate: r.access.canCreate }),
    );
  }

  async #newEndpoint(r: PortalRequest): Promise<void> {
    r.access.requireCreate();
    this.#headers.html(r.res, 200, newEndpointPage(r.frame, formValuesOf(null)));
  }

  async #create(r: PortalRequest): Promise<void> {
    r.access.requireCreate();
    const name = (r.form.get('name') ?? '').trim();
    const fields = endpointFields(r.form);
    r.access.requireTypes(fields.eventTypes);
    const exists = await this.#backend.getSubscriber(r.access.caller, name).then(
      () => true,
      (err: unknown) => {
        if (err instanceof ManagementError && err.code === 'not_found') return false;
        throw err;
      },
    );
    if (exists) throw new ManagementError('name_unavailable', `an endpoint "${name}" exists already`);
    await this.#backend.putSubscriber(r.access.caller, name, definitionWith(null, fields));
    const secret = await this.#backend.rotateSecret(r.access.caller, name);
    this.#headers.html(r.res, 201, secretPage(r.frame, name, secret.current, 0));
  }

  async #endpoint(r: PortalRequest): Promise<void> {
    const name = this.#subscriber(r);
    const resource = await this.#backend.getSubscriber(r.access.caller, name);
    const taken = (resource.definition as { eventTypes: readonly string[] }).eventTypes;
    const catalogue = await this.#backend.eventTypes(r.access.caller);
    const exampleTypes = catalogue
      .map((e) => e.type)
      .filter((t) => r.access.seesType(t) && EventSelection.of({ eventTypes: taken }).takesType(t));
    const notice = doneText(r.url.searchParams);
    this.#headers.html(r.res, 200, endpointPage(r.frame, { resource, exampleTypes, notice }));
  }

  async #save(r: PortalRequest): Promise<void> {
    r.access.requireManage();
    const name = this.#subscriber(r);
    const fields = endpointFields(r.form);
    r.access.requireTypes(fields.eventTypes);
    const current = await this.#backend.getSubscriber(r.access.caller, name);
    const etag = r.form.get('etag') ?? current.etag;
    const definition = definitionWith(current.definition as unknown as Record<string, unknown>, fields);
    await this.#backend.putSubscriber(r.access.caller, name, definition, etag);
    this.#headers.redirect(r.res, `${this.#endpointPath(r, name)}?done=saved`);
  }

  async #state(r: PortalRequest, action: 'pause' | 'resume'): Promise<void> {
    r.access.requireManage();
    const name = this.#subscriber(r);
    await this.#backend.changeState(r.access.caller, name, { action });
    this.#headers.redirect(
      r.res,
      `${this.#endpointPath(r, name)}?done=${action === 'pause' ? 'paused' : 'resumed'}`,
    );
  }

  async #rotate(r: PortalRequest): Promise<void> {
    r.access.requireManage();
    const name = this.#subscriber(r);
    const rotated = await this.#backend.rotateSecret(r.access.caller, name);
    this.#headers.html(r.res, 200, secretPage(r.frame, name, rotated.current, rotated.previous.length));
  }

  async #sendExample(r: PortalRequest): Promise<void> {
    r.access.requireManage();
    const name = this.#subscriber(r);
    const type = r.form.get('type') ?? '';
    if (!r.access.seesType(type)) throw new ManagementError('not_found', `no event type "${type}"`);
    const sent = await this.#backend.sendExample(r.access.caller, { subscriber: name, type });
    this.#headers.redirect(
      r.res,
      `${this.#endpointPath(r, name)}?done=example&event=${segment(sent.eventId)}`,
    );
  }

  async #recover(r: PortalRequest): Promise<void> {
    r.access.requireManage();
    const name = this.#subscriber(r);
    const since = instantOf(r.form.get('since') ?? '');
    await this.#backend.recover(r.access.caller, { subscriber: name, since });
    this.#headers.redirect(r.res, `${this.#endpointPath(r, name)}?done=recovering`);
  }

  async #catalogue(r: PortalRequest): Promise<void> {
    const entries = (await this.#backend.eventTypes(r.access.caller)).filter((e) =>
      r.access.seesType(e.type),
    );
    const items = entries.map((entry) => ({
      entry: { ...entry, subscribers: entry.subscribers.filter((s) => r.access.seesSubscriber(s)) },
      example: this.#backend.example(entry.schema),
    }));
    this.#headers.html(r.res, 200, cataloguePage(r.frame, items));
  }

  async #messages(r: PortalRequest): Promise<void> {
    const query = messageQuery(r.url.searchParams, r.access);
    const page =
      query === null
        ? { items: [], nextCursor: null }
        : await this.#backend.listMessages(r.access.caller, query);
    const search = new URLSearchParams(r.url.searchParams);
    search.delete('cursor');
    this.#headers.html(
      r.res,
      200,
      messagesPage(r.frame, {
        query: query ?? { limit: PAGE_SIZE },
        items: page.items,
        nextCursor: page.nextCursor,
        search: search.toString(),
      }),
    );
  }

  async #message(r: PortalRequest): Promise<void> {
    const eventId = r.params[0] as string;
    const message = await this.#backend.getMessage(r.access.caller, eventId, r.access.subscriberLimit);
    if (!r.access.seesType(message.type ?? ''))
      throw new ManagementError('not_found', `no message "${eventId}"`);
    // The data is an aid on the page: past the topic's retention, or with the registry away, the
    // attempts still show.
    const payload = await this.#backend
      .messagePayload(r.access.caller, eventId, r.access.subscriberLimit)
      .catch((err: unknown) => ({
        mode: 'unavailable' as const,
        why: err instanceof Error ? err.message : String(err),
      }));
    this.#headers.html(r.res, 200, messagePage(r.frame, message, payload, doneText(r.url.searchParams)));
  }

  async #resend(r: PortalRequest): Promise<void> {
    r.access.requireManage();
    const eventId = r.params[0] as string;
    const subscriber = r.form.get('subscriber') ?? '';
    r.access.requireSubscriber(subscriber);
    const message = await this.#backend.getMessage(r.access.caller, eventId, r.access.subscriberLimit);
    if (!r.access.seesType(message.type ?? ''))
      throw new ManagementError('not_found', `no message "${eventId}"`);
    await this.#backend.resendMessage(r.access.caller, { eventId, subscriber });
    this.#headers.redirect(r.res, `${r.frame.base}/messages/${segment(eventId)}?done=resent`);
  }

  async #notices(r: PortalRequest): Promise<void> {
    const notices = (await this.#backend.notices(r.access.caller, 100)).filter(
      (n) => n.subscriber === null || r.access.seesSubscriber(n.subscriber),
    );
    this.#headers.html(r.res, 200, noticesPage(r.frame, notices));
  }

  #subscriber(r: PortalRequest): string {
    const name = r.params[0] as string;
    r.access.requireSubscriber(name);
    return name;
  }

  #endpointPath(r: PortalRequest, name: string): string {
    return `${r.frame.base}/endpoints/${segment(name)}`;
  }
}

function split(path: string): string[] {
  return path === '' ? [] : path.split('/');
}

/**
 * The list's query within the link's limits; null when the asked endpoint or type lies outside
 * them (nothing to show, and nothing said of why).
 */
export function messageQuery(search: URLSearchParams, access: PortalAccess): MessageQuery | null {
  const subscriber = search.get('subscriber') || undefined;
  const type = search.get('type') || undefined;
  const state = search.get('state') || undefined;
  if (subscriber !== undefined && !access.seesSubscriber(subscriber)) return null;
  if (type !== undefined && !access.seesType(type)) return null;
  if (state !== undefined && !MESSAGE_STATES.has(state))
    throw new ManagementError('invalid_request', `state: one of ${[...MESSAGE_STATES].join(', ')}`);
  const bounded = (name: string, max: number) => {
    const v = search.get(name) || undefined;
    if (v !== undefined && v.length > max)
      throw new ManagementError('invalid_request', `${name}: at most ${max} characters`);
    return v;
  };
  return {
    subscribers: subscriber === undefined ? access.subscriberLimit : [subscriber],
    types: type === undefined ? access.typeLimit : [type],
    state: state as MessageState | undefined,
    eventId: bounded('eventId', 200),
    since: bounded('since', 40),
    until: bounded('until', 40),
    cursor: bounded('cursor', 500),
    limit: PAGE_SIZE,
  };
}

/** A datetime-local value (no zone: UTC) or an ISO instant, as an ISO instant; bad: 400. */
function instantOf(text: string): string {
  const withZone = /([zZ]|[+-]\d\d:\d\d)$/.test(text) ? text : `${text.length === 16 ? `${text}:00` : text}Z`;
  const ms = Date.parse(withZone);
  if (text.length > 40 || !Number.isFinite(ms))
    throw new ManagementError('invalid_request', 'since: a date and time');
  return new Date(ms).toISOString();
}

/** The line an action's redirect asks the page to show; only known actions, never text from the URL. */
function doneText(search: URLSearchParams): string | undefined {
  const done = search.get('done');
  const event = search.get('event') ?? '';
  switch (done) {
    case 'saved':
      return 'Saved.';
    case 'paused':
      return 'Paused: events wait until you resume.';
    case 'resumed':
      return 'Resumed.';
    case 'resent':
      return 'Sent again: the new attempts appear here as they are made.';
    case 'recovering':
      return 'Recovery started: each message dead-lettered since then is sent again, and shows in Messages as it is.';
    case 'example':
      return /^[A-Za-z0-9._:-]{1,200}$/.test(event) ? `Example sent: event ${event}.` : 'Example sent.';
    default:
      return undefined;
  }
}
