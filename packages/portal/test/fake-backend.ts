import type { Caller, EventTypeEntry, MessageDetail, SubscriberResource } from '@hookstream/management';
import { ManagementError } from '@hookstream/management';
import type { MessageQuery, NoticeView, PortalBackend } from '../src/portal-backend.ts';

interface Endpoint {
  tenant: string;
  definition: Record<string, unknown>;
  state: 'active' | 'paused';
}

/** An in-memory backend that applies the tenant rule the management service applies. */
export class FakeBackend implements PortalBackend {
  readonly endpoints = new Map<string, Endpoint>();
  readonly messages: MessageDetail[] = [];
  readonly calls: string[] = [];
  readonly queries: MessageQuery[] = [];

  add(name: string, tenant: string, fields: Record<string, unknown> = {}): void {
    this.endpoints.set(name, {
      tenant,
      state: 'active',
      definition: {
        name,
        tenant,
        url: `https://example.com/${name}`,
        eventTypes: ['shipment.updated'],
        ...fields,
      },
    });
  }

  #mine(caller: Caller, name: string): Endpoint {
    const e = this.endpoints.get(name);
    if (e === undefined || (caller.scope.kind === 'tenant' && e.tenant !== caller.scope.tenant))
      throw new ManagementError('not_found', `no subscriber "${name}"`);
    return e;
  }

  #resource(e: Endpoint): SubscriberResource {
    const state =
      e.state === 'active'
        ? { kind: 'active' }
        : { kind: 'paused', reason: '', by: 'x', at: new Date(0).toISOString() };
    return { definition: e.definition, state, secret: null, etag: '"1"' } as unknown as SubscriberResource;
  }

  async listSubscribers(caller: Caller) {
    const items = [...this.endpoints.entries()]
      .filter(([, e]) => caller.scope.kind === 'operator' || e.tenant === caller.scope.tenant)
      .map(([name, e]) => ({
        name,
        tenant: e.tenant,
        state: (this.#resource(e) as { state: SubscriberResource['state'] }).state,
        lag: 0,
        oldestUnsettledAgeMs: null,
        retentionHeadroomSeconds: null,
        dlqDepth: 0,
        breaker: null,
      }));
    return { items, nextCursor: null };
  }

  async getSubscriber(caller: Caller, name: string) {
    return this.#resource(this.#mine(caller, name));
  }

  async putSubscriber(caller: Caller, name: string, body: unknown) {
    this.calls.push(`put ${name}`);
    const tenant = caller.scope.kind === 'tenant' ? caller.scope.tenant : 'none';
    const existing = this.endpoints.get(name);
    if (existing !== undefined && existing.tenant !== tenant)
      throw new ManagementError('name_unavailable', 'taken');
    this.endpoints.set(name, { tenant, state: 'active', definition: { ...(body as object), name, tenant } });
    return {
      action: 'created',
      subscriber: this.#resource(this.#mine(caller, name)),
      droppedSeals: [],
    } as never;
  }

  async changeState(caller: Caller, name: string, request: { action: 'pause' | 'resume' }) {
    const e = this.#mine(caller, name);
    this.calls.push(`${request.action} ${name}`);
    e.state = request.action === 'pause' ? 'paused' : 'active';
    return { name, changed: true, state: this.#resource(e).state, published: null, noticeError: null };
  }

  async rotateSecret(caller: Caller, name: string) {
    this.#mine(caller, name);
    this.calls.push(`rotate ${name}`);
    return { name, current: 'whsec_new', createdAt: new Date(0).toISOString(), previous: [] };
  }

  async eventTypes(): Promise<EventTypeEntry[]> {
    return [
      { type: 'shipment.updated', subject: 's', schema: { type: 'record' }, subscribers: [] },
      { type: 'key.revoked', subject: 'k', schema: { type: 'record' }, subscribers: [] },
    ];
  }

  async listMessages(caller: Caller, query: MessageQuery) {
    this.queries.push(query);
    const tenant = caller.scope.kind === 'tenant' ? caller.scope.tenant : '';
    const items = this.messages.filter(
      (m) =>
        m.eventId.startsWith(`${tenant}-`) &&
        (query.types === undefined || query.types.includes(m.type ?? '')),
    );
    return { items, nextCursor: null };
  }

  async getMessage(caller: Caller, eventId: string) {
    const tenant = caller.scope.kind === 'tenant' ? caller.scope.tenant : '';
    const m = this.messages.find((x) => x.eventId === eventId && eventId.startsWith(`${tenant}-`));
    if (m === undefined) throw new ManagementError('not_found', `no message "${eventId}"`);
    return m;
  }

  async messagePayload(caller: Caller, eventId: string) {
    await this.getMessage(caller, eventId);
    return { mode: 'digest', bytes: 3, sha256: 'a'.repeat(64) } as const;
  }

  async resendMessage(caller: Caller, request: { eventId: string; subscriber: string }) {
    this.#mine(caller, request.subscriber);
    this.calls.push(`resend ${request.eventId} ${request.subscriber} by ${caller.actor?.kind}`);
    return { eventId: request.eventId };
  }

  async sendExample(caller: Caller, request: { subscriber: string; type: string }) {
    this.#mine(caller, request.subscriber);
    this.calls.push(`example ${request.type} ${request.subscriber}`);
    return { eventId: 'evt_example' };
  }

  async recover(caller: Caller, request: { subscriber: string; since: string }) {
    this.#mine(caller, request.subscriber);
    this.calls.push(`recover ${request.subscriber} ${request.since}`);
    return { jobId: 'job_1' };
  }

  async notices(): Promise<NoticeView[]> {
    return [];
  }

  example(schema: Readonly<Record<string, unknown>>): unknown {
    return { of: schema.type };
  }
}
