import { setTimeout as sleep } from 'node:timers/promises';
import {
  AckAnswer,
  AckBody,
  AuditList,
  AuditQuery,
  DeadLetterList,
  DeadLetterQuery,
  DeleteAnswer,
  DeleteQuery,
  EventParams,
  EventTypeList,
  Job,
  JobParams,
  LeaseAnswer,
  LeaseQuery,
  LedgerAnswer,
  ListQuery,
  MessageDetail,
  MessageList,
  MessageParams,
  MessagePayload,
  MessageQuery,
  NackAnswer,
  NackBody,
  NameParams,
  OpenApiDocument,
  PauseBody,
  PortalLinkList,
  PortalLinkParams,
  PortalLinkQuery,
  PutAnswer,
  PutBody,
  ReplayBody,
  ResendAnswer,
  ResendParams,
  RevokedPortalLink,
  RewindAnswer,
  RewindBody,
  RotateBody,
  SecretAnswer,
  SendExampleAnswer,
  SendExampleBody,
  StateAnswer,
  SubscriberList,
  SubscriberResource,
} from '@hookstream/api-schemas';
import { MintedPortalLink, PortalLinkRequest, TenantErasure, TenantId } from '@hookstream/contracts';
import { z as zod } from 'zod';
import { ApiClientError } from './api-client-error.ts';
import { type ApiClientOptions, ApiTransport } from './api-transport.ts';
import type * as T from './api-types.ts';
import type { ApiOperation } from './operations.ts';

/** Pages `subscribers()` follows at most (1,000 names each): a cursor that never ends stops there. */
const MAX_PAGES = 10_000;

/**
 * The management API, typed: one method per route of its route table, named by the route's
 * operationId. Requests are validated with the server's own schemas before they are sent (a bad
 * one is refused, nothing sent); answers are parsed with them, so a client and a server that
 * disagree fail loudly (`invalid_answer`) rather than hand back something else. Every failure is
 * an ApiClientError with the API's code, the HTTP status and whether retrying can help.
 */
export class ApiClient {
  readonly #http: ApiTransport;

  constructor(options: ApiClientOptions) {
    this.#http = new ApiTransport(options);
  }

  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** The OpenAPI 3.1 document (no token needed). */
  async getOpenApi(): Promise<Record<string, unknown>> {
    return (await this.#http.send('getOpenApi', {}, OpenApiDocument)).body;
  }

  /** One page of the caller's subscribers by name; `nextCursor` names the next (null: the last). */
  async listSubscribers(options: T.ListOptions = {}): Promise<T.SubscriberList> {
    const query = strings(options);
    checked('listSubscribers', ListQuery, query, 'invalid_request', 'query');
    return (await this.#http.send('listSubscribers', { query }, SubscriberList)).body;
  }

  /** Every subscriber of the caller, page after page (`pageSize` per request, 1,000 by default). */
  async *subscribers(pageSize = 1000): AsyncGenerator<T.SubscriberItem> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const list = await this.listSubscribers({
        limit: pageSize,
        ...(cursor === undefined ? {} : { cursor }),
      });
      yield* list.items;
      if (list.nextCursor === null) return;
      cursor = list.nextCursor;
    }
    throw new ApiClientError('invalid_answer', `more than ${MAX_PAGES} pages of subscribers`, {
      operation: 'listSubscribers',
    });
  }

  /** A subscriber (secrets never shown); its `etag` is what If-Match names. */
  async getSubscriber(name: string): Promise<T.SubscriberResource> {
    return (
      await this.#http.send('getSubscriber', { params: named('getSubscriber', name) }, SubscriberResource)
    ).body;
  }

  /** Creates or replaces a subscriber from its definition (`action` says which, or unchanged). */
  async putSubscriber(
    name: string,
    definition: T.SubscriberDefinition,
    options: T.PutOptions = {},
  ): Promise<T.PutAnswer> {
    checked('putSubscriber', PutBody, definition, 'invalid_definition', 'definition');
    // Sent as given: the server validates it again in its own terms (a tenant's rules, defaults).
    return (
      await this.#http.send(
        'putSubscriber',
        { params: named('putSubscriber', name), body: definition, ifMatch: options.ifMatch },
        PutAnswer,
      )
    ).body;
  }

  async deleteSubscriber(name: string, options: T.DeleteOptions = {}): Promise<T.DeleteAnswer> {
    const query = { purge: String(options.purge ?? false) };
    checked('deleteSubscriber', DeleteQuery, query, 'invalid_request', 'query');
    return (
      await this.#http.send(
        'deleteSubscriber',
        { params: named('deleteSubscriber', name), query, ifMatch: options.ifMatch },
        DeleteAnswer,
      )
    ).body;
  }

  async pauseSubscriber(name: string, options: T.PauseOptions = {}): Promise<T.StateAnswer> {
    return this.#post('pauseSubscriber', name, PauseBody, options, StateAnswer);
  }

  async resumeSubscriber(name: string): Promise<T.StateAnswer> {
    return this.#post('resumeSubscriber', name, PauseBody, undefined, StateAnswer);
  }

  /** Delivers the subscriber's events again from `to` (ids unchanged), or counts them (`dryRun`). */
  async rewindSubscriber(name: string, options: T.RewindOptions): Promise<T.RewindAnswer> {
    return this.#post('rewindSubscriber', name, RewindBody, options, RewindAnswer);
  }

  /** The managed secret and the previous ones still signing, in clear. */
  async getSecret(name: string): Promise<T.SecretAnswer> {
    return (await this.#http.send('getSecret', { params: named('getSecret', name) }, SecretAnswer)).body;
  }

  /** A new managed secret; the answer holds the secrets now signing, in clear. */
  async rotateSecret(name: string, options: T.RotateOptions = {}): Promise<T.SecretAnswer> {
    return this.#post('rotateSecret', name, RotateBody, options, SecretAnswer);
  }

  /** The subscriber's dead letters the selection names, oldest first. */
  async listDeadLetters(name: string, selection: T.DeadLetterSelection = {}): Promise<T.DeadLetterList> {
    const query = strings(selection);
    checked('listDeadLetters', DeadLetterQuery, query, 'invalid_request', 'selection');
    return (
      await this.#http.send(
        'listDeadLetters',
        { params: named('listDeadLetters', name), query },
        DeadLetterList,
      )
    ).body;
  }

  /** Starts a replay (or a dry run) of the selected dead letters: a job, which getJob follows. */
  async replayDeadLetters(name: string, options: T.ReplayOptions = {}): Promise<T.Job> {
    return this.#post('replayDeadLetters', name, ReplayBody, options, Job);
  }

  async getJob(id: string): Promise<T.Job> {
    const params = checked('getJob', JobParams, { id }, 'invalid_request', 'job id');
    return (await this.#http.send('getJob', { params }, Job)).body;
  }

  /**
   * Polls a job until it is no longer running, at most `timeoutMs` (default 10 min); `onProgress`
   * sees each reading. A job still running then is an ApiClientError `timeout` (it goes on).
   */
  async waitForJob(
    id: string,
    options: { timeoutMs?: number; intervalMs?: number; onProgress?: (job: T.Job) => void } = {},
  ): Promise<T.Job> {
    const timeoutMs = bounded(options.timeoutMs ?? 600_000, 1, 86_400_000);
    const intervalMs = bounded(options.intervalMs ?? 250, 10, 60_000);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.getJob(id);
      options.onProgress?.(job);
      if (job.state !== 'running') return job;
      if (Date.now() + intervalMs > deadline)
        throw new ApiClientError('timeout', `job ${id} is still running after ${timeoutMs} ms`, {
          operation: 'getJob',
          canRetry: true,
        });
      await sleep(intervalMs);
    }
  }

  /** Where an event is for each of the caller's subscribers: counts per state, then the lines. */
  async getEventLedger(eventId: string): Promise<T.LedgerAnswer> {
    const params = checked('getEventLedger', EventParams, { id: eventId }, 'invalid_request', 'event id');
    return (await this.#http.send('getEventLedger', { params }, LedgerAnswer)).body;
  }

  async listEventTypes(): Promise<T.EventTypeList> {
    return (await this.#http.send('listEventTypes', {}, EventTypeList)).body;
  }

  /** The newest audit records, oldest first (a tenant's own only). */
  async listAudit(options: T.AuditOptions = {}): Promise<T.AuditList> {
    const query = strings(options);
    checked('listAudit', AuditQuery, query, 'invalid_request', 'query');
    return (await this.#http.send('listAudit', { query }, AuditList)).body;
  }

  /**
   * Leases a pull subscriber's events: up to `max`, waiting up to `wait` seconds for the first (a
   * long poll; the call's deadline grows with it), held for `lease` seconds. `lease` is null when
   * none came.
   */
  async leaseEvents(name: string, options: T.LeaseOptions = {}): Promise<T.LeaseAnswer> {
    const query = strings(options);
    const parsed = checked('leaseEvents', LeaseQuery, query, 'invalid_request', 'query');
    return (
      await this.#http.send(
        'leaseEvents',
        { params: named('leaseEvents', name), query, timeoutMs: parsed.wait * 1000 + 15_000 },
        LeaseAnswer,
      )
    ).body;
  }

  /** Acknowledges a lease's events: they are settled, and the subscriber's ledger moves. */
  async ackEvents(name: string, options: T.AckOptions): Promise<T.AckAnswer> {
    return this.#post('ackEvents', name, AckBody, options, AckAnswer);
  }

  /** Gives a lease's events back: leasable again at once, or after `delayMs` down the retry schedule. */
  async nackEvents(name: string, options: T.NackOptions): Promise<T.NackAnswer> {
    return this.#post('nackEvents', name, NackBody, options, NackAnswer);
  }

  /** A page of one tenant's messages, newest first (the operator names `tenant`). */
  async listMessages(options: T.MessageOptions = {}): Promise<T.MessageList> {
    const query = strings(options);
    checked('listMessages', MessageQuery, query, 'invalid_request', 'query');
    return (await this.#http.send('listMessages', { query }, MessageList)).body;
  }

  /** One message with every attempt of the caller's endpoints. */
  async getMessage(eventId: string, options: T.MessageGetOptions = {}): Promise<T.MessageDetail> {
    const params = checked('getMessage', MessageParams, { eventId }, 'invalid_request', 'event id');
    const query = strings(options);
    checked('getMessage', MessageQuery, query, 'invalid_request', 'query');
    return (await this.#http.send('getMessage', { params, query }, MessageDetail)).body;
  }

  /** As much of a message's data as the operator's mode shows: nothing, a size and hash, or the data. */
  async getMessagePayload(eventId: string, options: T.MessageGetOptions = {}): Promise<T.MessagePayload> {
    const params = checked('getMessagePayload', MessageParams, { eventId }, 'invalid_request', 'event id');
    const query = strings(options);
    checked('getMessagePayload', MessageQuery, query, 'invalid_request', 'query');
    return (await this.#http.send('getMessagePayload', { params, query }, MessagePayload)).body;
  }

  /** Sends one message again to one endpoint (same id, a fresh attempt budget). */
  async resendMessage(eventId: string, subscriber: string): Promise<T.ResendAnswer> {
    const params = checked(
      'resendMessage',
      ResendParams,
      { eventId, name: subscriber },
      'invalid_request',
      'event id or subscriber name',
    );
    return (await this.#http.send('resendMessage', { params }, ResendAnswer)).body;
  }

  /** Sends an example event of `type` to this endpoint only; the answer names its new id. */
  async sendExample(subscriber: string, type: string): Promise<T.SendExampleAnswer> {
    return this.#post('sendExample', subscriber, SendExampleBody, { type }, SendExampleAnswer);
  }

  /** A portal link for one tenant (operator tokens only): the only time its URL is shown. */
  async createPortalLink(request: T.PortalLinkRequest): Promise<T.MintedPortalLink> {
    checked('createPortalLink', PortalLinkRequest, request, 'invalid_body', 'body');
    return (await this.#http.send('createPortalLink', { body: request }, MintedPortalLink)).body;
  }

  /** A page of portal links: the active ones unless `state: 'all'` (operator tokens only). */
  async listPortalLinks(options: T.PortalLinkOptions = {}): Promise<T.PortalLinkList> {
    const query = strings(options);
    checked('listPortalLinks', PortalLinkQuery, query, 'invalid_request', 'query');
    return (await this.#http.send('listPortalLinks', { query }, PortalLinkList)).body;
  }

  /** Revokes a portal link at once; the answer is the link as it is now. */
  async revokePortalLink(id: string): Promise<T.RevokedPortalLink> {
    const params = checked('revokePortalLink', PortalLinkParams, { id }, 'invalid_request', 'link id');
    return (await this.#http.send('revokePortalLink', { params }, RevokedPortalLink)).body;
  }

  /** Erases a tenant's messages from every portal index (operator tokens only). */
  async eraseTenantMessages(tenant: string): Promise<TenantErasure> {
    const params = checked(
      'eraseTenantMessages',
      zod.object({ tenant: TenantId }),
      { tenant },
      'invalid_request',
      'tenant',
    );
    return (await this.#http.send('eraseTenantMessages', { params }, TenantErasure)).body;
  }

  async #post<A extends zod.ZodType>(
    operation: ApiOperation,
    name: string,
    bodySchema: zod.ZodType,
    body: unknown,
    answer: A,
  ): Promise<zod.output<A>> {
    checked(operation, bodySchema, body, 'invalid_body', 'body');
    return (await this.#http.send(operation, { params: named(operation, name), body }, answer)).body;
  }
}

/** The value as the schema parses it, or invalid_request (nothing sent) naming each field. */
function checked<S extends zod.ZodType>(
  operation: ApiOperation,
  schema: S,
  value: unknown,
  code: string,
  what: string,
): zod.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ApiClientError(code, `the ${what} is invalid; nothing was sent`, {
    operation,
    details: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
  });
}

function named(operation: ApiOperation, name: string): { name: string } {
  checked(operation, NameParams, { name }, 'invalid_request', 'subscriber name');
  return { name };
}

/** Query values as the URL carries them: lists comma-separated (an empty one left out), numbers in decimal. */
function strings(options: object): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(options))
    out[k] =
      v === undefined || (Array.isArray(v) && v.length === 0)
        ? undefined
        : Array.isArray(v)
          ? v.join(',')
          : String(v);
  return out;
}

function bounded(n: number, min: number, max: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : max;
}
