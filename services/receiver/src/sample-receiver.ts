import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type Arrival, maxInWindow, perSecondHistogram } from './arrival-log.ts';
import { ReceiverBehaviour } from './behaviour.ts';
import { BoundedMap } from './bounded-map.ts';

export interface ReceiverOptions {
  /** `whsec_…`; when set, unsigned or wrongly signed requests get 401. */
  readonly secret?: string | undefined;
  readonly behaviour?: Partial<ReceiverBehaviour>;
  /** Keep every request's headers and body in memory (tests inspect them). */
  readonly record?: boolean;
  /** Bytes of request body accepted; more is answered 413. */
  readonly maxBodyBytes?: number;
  /**
   * Events (and arrival times) remembered for deduplication and stats, oldest forgotten first
   * (default 1,000,000). `record` keeps every arrival regardless: tests only.
   */
  readonly maxTracked?: number;
  /**
   * Arrival times in epoch ms, monotonic (default: performance.timeOrigin + performance.now(), so
   * a wall-clock step does not squeeze or stretch the arrival record). Tests pass a fixed clock.
   */
  readonly now?: () => number;
}

export interface ReceiverStats {
  readonly received: number;
  /** Distinct (subscription_id, event_id) pairs answered 2xx: what had an effect. */
  readonly accepted: number;
  readonly duplicates: number;
  readonly badSignatures: number;
  readonly rateLimited: number;
  readonly failed: number;
  /** Most requests seen in any 1-second window. */
  readonly maxPerSecond: number;
  /** First and last request (epoch ms, monotonic between them); null before any. */
  readonly firstAtMs: number | null;
  readonly lastAtMs: number | null;
  /** Requests per second since the first one. */
  readonly perSecond: readonly number[];
}

/**
 * The sample subscriber endpoint: verifies signatures with the standardwebhooks library,
 * deduplicates on (subscription_id, event_id), answers 204, and misbehaves when told to.
 */
export class SampleReceiver {
  readonly #server: Server;
  readonly #webhook: Webhook | null;
  readonly #record: boolean;
  readonly #maxBody: number;
  #behaviour: ReceiverBehaviour;
  readonly #maxTracked: number;
  readonly #now: () => number;
  readonly #accepted: BoundedMap<string, true>;
  readonly #attemptsByEvent: BoundedMap<string, number>;
  /** The last #maxTracked arrival times (for maxPerSecond and perSecond). */
  #times: number[] = [];
  #received = 0;
  #acceptedCount = 0;
  #firstAtMs: number | null = null;
  readonly #recent: number[] = [];
  readonly arrivals: Arrival[] = [];
  #duplicates = 0;
  #badSignatures = 0;
  #rateLimited = 0;
  #failed = 0;
  #port = 0;

  constructor(options: ReceiverOptions = {}) {
    this.#webhook = options.secret ? new Webhook(options.secret) : null;
    this.#record = options.record ?? false;
    this.#maxBody = options.maxBodyBytes ?? 1024 * 1024;
    this.#behaviour = ReceiverBehaviour.parse(options.behaviour ?? {});
    this.#maxTracked = options.maxTracked ?? 1_000_000;
    this.#now = options.now ?? (() => performance.timeOrigin + performance.now());
    this.#accepted = new BoundedMap(this.#maxTracked);
    this.#attemptsByEvent = new BoundedMap(this.#maxTracked);
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.keepAliveTimeout = 60_000;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((ok, fail) => {
      this.#server.once('error', fail);
      this.#server.listen(port, host, () => {
        this.#server.off('error', fail);
        ok();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  /** Stops answering (connections refused) until listen() is called again; state is kept. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((ok) => this.#server.close(() => ok()));
  }

  setBehaviour(change: Partial<ReceiverBehaviour>): void {
    this.#behaviour = ReceiverBehaviour.parse({ ...this.#behaviour, ...change });
  }

  hasAccepted(subscriptionId: string, eventId: string): boolean {
    return this.#accepted.has(`${subscriptionId}\0${eventId}`);
  }

  stats(): ReceiverStats {
    return {
      received: this.#received,
      accepted: this.#acceptedCount,
      duplicates: this.#duplicates,
      badSignatures: this.#badSignatures,
      rateLimited: this.#rateLimited,
      failed: this.#failed,
      maxPerSecond: maxInWindow(this.#times, 1000),
      firstAtMs: this.#firstAtMs,
      lastAtMs: this.#times.at(-1) ?? null,
      perSecond: perSecondHistogram(this.#times),
    };
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    // Liveness for container healthchecks: the server answers, nothing else is checked.
    if (req.method === 'GET' && req.url === '/healthz') {
      json(res, 200, { status: 'ok' });
      return;
    }
    if (req.method === 'GET' && req.url === '/stats') {
      json(res, 200, this.stats());
      return;
    }
    // GET /accepted/<subscription_id>/<event_id>: whether that event had its one effect here.
    const asked = req.method === 'GET' ? /^\/accepted\/([^/]+)\/([^/?]+)$/.exec(req.url ?? '') : null;
    if (asked) {
      let subscriptionId: string;
      let eventId: string;
      try {
        [subscriptionId, eventId] = [decodeURIComponent(asked[1] ?? ''), decodeURIComponent(asked[2] ?? '')];
      } catch {
        // A malformed escape (`%ZZ`) throws URIError; unanswered, it would crash the process.
        json(res, 400, { error: 'malformed percent-encoding in the path' });
        return;
      }
      const accepted = this.hasAccepted(subscriptionId, eventId);
      json(res, accepted ? 200 : 404, { subscription_id: subscriptionId, event_id: eventId, accepted });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= this.#maxBody) chunks.push(c);
    });
    req.on('end', () => {
      if (size > this.#maxBody) {
        json(res, 413, { error: 'body too large' });
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/control') {
        this.#control(body, res);
        return;
      }
      if (req.method !== 'POST') {
        json(res, 405, { error: 'POST only' });
        return;
      }
      const delay = this.#behaviour.delayMs;
      if (delay > 0) setTimeout(() => this.#deliver(req, body, res), delay);
      else this.#deliver(req, body, res);
    });
  }

  #control(body: string, res: ServerResponse): void {
    const parsed = ReceiverBehaviour.partial().safeParse(safeJson(body));
    if (!parsed.success) {
      json(res, 400, { error: parsed.error.issues[0]?.message ?? 'invalid' });
      return;
    }
    const change = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined));
    this.setBehaviour(change);
    json(res, 200, this.#behaviour);
  }

  #deliver(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const now = this.#now();
    this.#received++;
    this.#firstAtMs ??= now;
    this.#times.push(now);
    // Trim in chunks: shifting one at a time would copy the array on every request.
    if (this.#times.length > this.#maxTracked * 1.25) this.#times = this.#times.slice(-this.#maxTracked);
    const headers = flatHeaders(req);
    let payload: Record<string, unknown> | null = null;
    try {
      payload = this.#webhook
        ? (this.#webhook.verify(raw, headers) as Record<string, unknown>)
        : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      this.#badSignatures++;
      this.#answer(res, 401, now, null, headers);
      return;
    }
    const webhookId = headers['webhook-id'] ?? null;
    // A batch request carries its events in `events`, each as it would be sent alone, and has no
    // top-level `event_id` (a single event's data may hold an `events` field of its own).
    const members =
      Array.isArray(payload.events) && typeof payload.event_id !== 'string'
        ? (payload.events as unknown[]).map((e) => memberOf(e, webhookId))
        : [memberOf(payload, null)];
    const b = this.#behaviour;
    const answer = (status: number, extra: Record<string, string> = {}) =>
      this.#answer(res, status, now, members, headers, extra);

    if (b.rateLimitPerSecond !== null) {
      while ((this.#recent[0] ?? now) <= now - 1000) this.#recent.shift();
      this.#recent.push(now);
      if (this.#recent.length > b.rateLimitPerSecond) {
        this.#rateLimited++;
        answer(429, { 'retry-after': String(b.retryAfterSeconds) });
        return;
      }
    }
    const keyOf = (m: Member) => `${m.subscriptionId}\0${m.eventId}`;
    if (b.failTimes > 0) {
      // Each event counts its own requests; a batch fails while any of its events should.
      let fail = false;
      for (const m of members) {
        if (b.failEventIds !== undefined && !b.failEventIds.includes(m.eventId ?? '')) continue;
        const seen = (this.#attemptsByEvent.get(keyOf(m)) ?? 0) + 1;
        this.#attemptsByEvent.set(keyOf(m), seen);
        if (seen <= b.failTimes) fail = true;
      }
      if (fail) {
        this.#failed++;
        answer(b.failStatus, b.failStatus === 429 ? { 'retry-after': String(b.retryAfterSeconds) } : {});
        return;
      }
    }
    if (b.fixedStatus !== null) {
      if (b.fixedStatus >= 300) this.#failed++;
      answer(b.fixedStatus);
      return;
    }
    for (const m of members) {
      if (this.#accepted.has(keyOf(m))) this.#duplicates++;
      else {
        this.#accepted.set(keyOf(m), true);
        this.#acceptedCount++;
      }
    }
    answer(204);
  }

  #answer(
    res: ServerResponse,
    status: number,
    atMs: number,
    members: readonly Member[] | null,
    headers: Record<string, string>,
    extra: Record<string, string> = {},
  ): void {
    if (this.#record) {
      // One arrival per event: a batch request's events each arrive, naming their batch.
      for (const m of members ?? [null])
        this.arrivals.push({
          atMs,
          status,
          eventId: m?.eventId ?? null,
          subscriptionId: m?.subscriptionId ?? null,
          headers,
          ...(m?.body ? { body: m.body } : {}),
          ...(m?.batchId ? { batchId: m.batchId, batchSize: members?.length ?? 1 } : {}),
        });
    }
    if (this.#behaviour.echoHeaders) {
      res
        .writeHead(status, { ...extra, 'content-type': 'application/json' })
        .end(JSON.stringify(credentialsFirst(headers)));
      return;
    }
    res.writeHead(status, extra).end();
  }
}

/** The request's headers with those carrying credentials first, so even a short excerpt of the echo holds them. */
function credentialsFirst(headers: Record<string, string>): Record<string, string> {
  const credential = (h: string) => h === 'authorization' || h === 'webhook-signature';
  const entries = Object.entries(headers);
  return Object.fromEntries([
    ...entries.filter(([h]) => credential(h)),
    ...entries.filter(([h]) => !credential(h)),
  ]);
}

/** One event of a request (the only one, or a batch's member). */
interface Member {
  readonly eventId: string | null;
  readonly subscriptionId: string | null;
  readonly body: Record<string, unknown> | null;
  /** The batch request's webhook-id; null for a request of one event. */
  readonly batchId: string | null;
}

function memberOf(value: unknown, batchId: string | null): Member {
  const body = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  return {
    eventId: typeof body?.event_id === 'string' ? body.event_id : null,
    subscriptionId: typeof body?.subscription_id === 'string' ? body.subscription_id : null,
    body,
    batchId,
  };
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}
