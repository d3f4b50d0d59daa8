import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventId, SubscriberName } from '@hookstream/contracts';
import type { ReplayJobs } from '@hookstream/management';
import { selectDeadLetters } from '@hookstream/replay';
import type { ConsoleSession } from './console-auth.ts';
import type { ConsoleBackend } from './console-backend.ts';
import { redirect, sendHtml } from './console-response.ts';
import { filterParams, selectionFromParams } from './dead-letter-filter.ts';
import { ConsoleError } from './errors.ts';
import { segment } from './format.ts';
import { cataloguePage } from './pages/catalogue-page.ts';
import { deadLetterPage } from './pages/dead-letter-page.ts';
import { deadLettersPage } from './pages/dead-letters-page.ts';
import { eventPage } from './pages/event-page.ts';
import { replayPage } from './pages/replay-page.ts';
import { subscriberPage } from './pages/subscriber-page.ts';
import { subscribersPage } from './pages/subscribers-page.ts';

/** One authenticated request: the session is known, and a POST's form has passed the CSRF check. */
export interface RouteRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly session: ConsoleSession;
  /** The checked form of a POST; empty for a GET. */
  readonly form: URLSearchParams;
  /** The path's captures: a subscriber name, an event id… already decoded. */
  readonly params: readonly string[];
}

type Handler = (r: RouteRequest) => Promise<void>;

interface Route {
  readonly method: 'GET' | 'POST';
  readonly pattern: RegExp;
  readonly handler: Handler;
}

export interface ConsoleRoutesContext {
  readonly backend: ConsoleBackend;
  readonly jobs: ReplayJobs;
  readonly refreshSeconds: number;
  readonly now?: () => number;
}

/** The pages and actions behind the login, matched by method and path. */
export class ConsoleRoutes {
  readonly #context: ConsoleRoutesContext;
  readonly #now: () => number;
  readonly #routes: readonly Route[];

  constructor(context: ConsoleRoutesContext) {
    this.#context = context;
    this.#now = context.now ?? Date.now;
    const name = '([^/]+)';
    this.#routes = [
      { method: 'GET', pattern: /^\/$/, handler: (r) => this.#subscribers(r) },
      { method: 'GET', pattern: new RegExp(`^/subscribers/${name}$`), handler: (r) => this.#subscriber(r) },
      {
        method: 'POST',
        pattern: new RegExp(`^/subscribers/${name}/(pause|resume)$`),
        handler: (r) => this.#state(r),
      },
      {
        method: 'GET',
        pattern: new RegExp(`^/subscribers/${name}/dead-letters$`),
        handler: (r) => this.#letters(r),
      },
      {
        method: 'GET',
        pattern: new RegExp(`^/subscribers/${name}/dead-letters/(\\d+)/(\\d+)$`),
        handler: (r) => this.#letter(r),
      },
      {
        method: 'POST',
        pattern: new RegExp(`^/subscribers/${name}/replay$`),
        handler: (r) => this.#replay(r),
      },
      { method: 'GET', pattern: new RegExp(`^/replays/${name}$`), handler: (r) => this.#job(r) },
      { method: 'GET', pattern: /^\/events$/, handler: (r) => this.#findEvent(r) },
      { method: 'GET', pattern: new RegExp(`^/events/${name}$`), handler: (r) => this.#event(r) },
      { method: 'GET', pattern: /^\/catalogue$/, handler: (r) => this.#catalogue(r) },
    ];
  }

  /** The handler and captures for a method and path; null: no such page. */
  match(method: string, path: string): { handler: Handler; params: string[] } | null {
    for (const route of this.#routes) {
      if (route.method !== method) continue;
      const m = route.pattern.exec(path);
      if (m === null) continue;
      try {
        return { handler: route.handler, params: m.slice(1).map((p) => decodeURIComponent(p ?? '')) };
      } catch {
        throw new ConsoleError('BAD_REQUEST', 'the path is not valid percent-encoding', false);
      }
    }
    return null;
  }

  async #subscribers(r: RouteRequest): Promise<void> {
    const { subscribers: all, problems } = await this.#context.backend.overview();
    // A big catalog is read whole (one pass over the registry) and narrowed here, by name.
    const query = r.url.searchParams.get('q')?.trim() ?? '';
    const subscribers = query === '' ? all : all.filter((s) => s.name.includes(query));
    sendHtml(
      r.res,
      200,
      subscribersPage({
        subscribers,
        total: all.length,
        query,
        problems,
        eventsTopic: this.#context.backend.eventsTopic,
        csrfToken: r.session.csrfToken,
        refreshSeconds: this.#context.refreshSeconds,
        measuredAt: new Date(this.#now()).toISOString(),
      }),
    );
  }

  async #subscriber(r: RouteRequest): Promise<void> {
    const view = await this.#context.backend.subscriber(subscriberParam(r.params[0]));
    sendHtml(r.res, 200, subscriberPage(view, r.session.csrfToken));
  }

  async #state(r: RouteRequest): Promise<void> {
    const name = subscriberParam(r.params[0]);
    const action = r.params[1] === 'pause' ? 'pause' : 'resume';
    const reason = r.form.get('reason')?.trim();
    const result = await this.#context.backend.changeState({
      action,
      name,
      by: r.session.operator,
      ...(reason ? { reason } : {}),
    });
    // Said, and logged, rather than a redirect that would look like all went well.
    if (result.noticeError !== null)
      throw new ConsoleError(
        'NOTICE_NOT_PUBLISHED',
        `${name} is active again, but its subscriber.enabled notice could not be published: ${result.noticeError}`,
        false,
      );
    redirect(r.res, `/subscribers/${segment(name)}`);
  }

  async #letters(r: RouteRequest): Promise<void> {
    const subscriber = subscriberParam(r.params[0]);
    const all = await this.#context.backend.deadLetters(subscriber);
    const filter = filterParams(r.url.searchParams);
    let letters = all;
    let problem: string | null = null;
    try {
      letters = selectDeadLetters(all, selectionFromParams(filter, this.#now()));
    } catch (err) {
      problem = err instanceof Error ? err.message : String(err);
      letters = [];
    }
    sendHtml(
      r.res,
      problem === null ? 200 : 400,
      deadLettersPage({
        subscriber,
        letters,
        total: all.length,
        filter,
        csrfToken: r.session.csrfToken,
        nowMs: this.#now(),
        problem,
      }),
    );
  }

  async #letter(r: RouteRequest): Promise<void> {
    const subscriber = subscriberParam(r.params[0]);
    const [partition, offset] = [Number(r.params[1]), r.params[2]];
    const letter = (await this.#context.backend.deadLetters(subscriber)).find(
      (l) => l.location.partition === partition && l.location.offset === offset,
    );
    if (letter === undefined)
      throw new ConsoleError('NOT_FOUND', `no dead letter at ${partition}:${offset} of ${subscriber}`, false);
    sendHtml(r.res, 200, deadLetterPage(subscriber, letter, r.session.csrfToken));
  }

  async #replay(r: RouteRequest): Promise<void> {
    const subscriber = subscriberParam(r.params[0]);
    const filter = filterParams(r.form);
    const picked = r.form.getAll('pick').filter((id) => id !== '');
    // Picked rows narrow the filter to those events; none picked replays every match.
    if (picked.length > 0) {
      filter.delete('event-id');
      for (const id of picked) filter.append('event-id', id);
    }
    const selection = selectionFromParams(filter, this.#now());
    const job = this.#context.jobs.start({
      subscriber,
      selection,
      dryRun: r.form.get('mode') !== 'replay',
      again: r.form.get('again') === '1',
      operator: r.session.operator,
    });
    redirect(r.res, `/replays/${segment(job.id)}`);
  }

  async #job(r: RouteRequest): Promise<void> {
    const job = this.#context.jobs.get(r.params[0] ?? '');
    if (job === undefined)
      throw new ConsoleError('NOT_FOUND', 'no such replay (the console keeps its latest 100 replays)', false);
    sendHtml(r.res, 200, replayPage(job, r.session.csrfToken));
  }

  async #findEvent(r: RouteRequest): Promise<void> {
    const id = r.url.searchParams.get('id')?.trim() ?? '';
    redirect(r.res, `/events/${segment(eventParam(id))}`);
  }

  async #event(r: RouteRequest): Promise<void> {
    const id = eventParam(r.params[0]);
    const [ledger, traceIds] = await Promise.all([
      this.#context.backend.ledger(id),
      this.#context.backend.traceIds(id),
    ]);
    sendHtml(
      r.res,
      200,
      eventPage({
        ledger,
        traceIds,
        jaegerUrl: this.#context.backend.jaegerUrl,
        csrfToken: r.session.csrfToken,
      }),
    );
  }

  async #catalogue(r: RouteRequest): Promise<void> {
    sendHtml(r.res, 200, cataloguePage(await this.#context.backend.catalogue(), r.session.csrfToken));
  }
}

function subscriberParam(text: string | undefined): string {
  const parsed = SubscriberName.safeParse(text);
  if (!parsed.success)
    throw new ConsoleError('BAD_REQUEST', `'${text ?? ''}' is not a subscriber name`, false);
  return parsed.data;
}

function eventParam(text: string | undefined): string {
  const parsed = EventId.safeParse(text);
  if (!parsed.success) throw new ConsoleError('BAD_REQUEST', `'${text ?? ''}' is not an event id`, false);
  return parsed.data;
}
