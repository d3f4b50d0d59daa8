import { randomBytes } from 'node:crypto';
import { SubscriberDefinition, type SubscriberRecord } from '@hookstream/contracts';
import type { LedgerView } from '@hookstream/management';
import type { DeadLetter, ReplayRequest, ReplaySummary } from '@hookstream/replay';
import {
  CatalogError,
  newManagedSecret,
  parseSecretsKey,
  type SubscriberOverview,
} from '@hookstream/subscribers';
import type { CatalogueEntry, ConsoleBackend, SubscriberView } from '../src/index.ts';

export const TOKEN = 'test-token-0123456789';
export const PLAIN_SECRET_MARK = 'whsec_';

/** A record with every kind of material the console must not show. */
export function record(
  name: string,
  state: SubscriberRecord['state'] = { kind: 'active' },
): SubscriberRecord {
  const key = parseSecretsKey(randomBytes(32).toString('base64'), 'test key');
  return {
    version: 2,
    definition: SubscriberDefinition.parse({
      name,
      url: `https://ops-user:hunter2-password@${name}.example.com/hook?api_key=query-credential&v=2`,
      eventTypes: ['order.created'],
      headers: { authorization: 'Bearer header-credential' },
    }),
    secret: newManagedSecret(
      key,
      { version: 2, subscriber: name, origin: `https://${name}.example.com` },
      new Date('2026-06-01T12:00:00Z'),
    ),
    state,
    createdAt: '2026-05-01T00:00:00.000Z',
    updatedAt: '2026-05-01T00:00:00.000Z',
  };
}

export function overview(name: string, extra: Partial<SubscriberOverview> = {}): SubscriberOverview {
  return {
    name,
    state: { kind: 'active' },
    host: `${name}.example.com`,
    eventTypes: ['order.created'],
    lag: 7,
    oldestUnsettledAgeMs: 65_000,
    retentionHeadroomSeconds: 7200,
    retentionHeadroomBasis: 'time',
    dlqDepth: 2,
    breaker: 'closed',
    recent: { windowMs: 300_000, attempts: 8, delivered: 6 },
    instances: ['pusher-a'],
    failedOn: [],
    ...extra,
  };
}

export function deadLetter(
  eventId: string,
  partition: number,
  offset: string,
  tenant: string | null = null,
): DeadLetter {
  return {
    location: { topic: 'hookstream.sub.orders.dlq', partition, offset },
    key: eventId,
    value: Buffer.from([0, 1, 2]),
    headers: tenant === null ? { ce_id: eventId } : { ce_id: eventId, ce_tenant: tenant },
    evidence: {
      eventId,
      subscriber: 'orders',
      reason: 'exhausted',
      attempts: 5,
      deadLetteredAt: '2026-06-01T11:00:00.000Z',
      status: 503,
      excerpt: '<b>down</b>',
      policyVersion: 'p1',
      origin: { topic: 'events', partition: 0, offset: '4' },
    },
    problem: null,
    eventId,
    eventType: 'order.created',
    tenant,
    deadLetteredAtMs: Date.parse('2026-06-01T11:00:00.000Z'),
  };
}

/** The console's backend in memory: records what the pages asked it to do. */
export class FakeBackend implements ConsoleBackend {
  readonly eventsTopic = 'events';
  readonly jaegerUrl = 'http://jaeger.test:16686';
  subscribers: SubscriberOverview[] = [overview('orders')];
  records = new Map<string, SubscriberRecord>([['orders', record('orders')]]);
  letters: DeadLetter[] = [deadLetter('evt-1', 0, '0'), deadLetter('evt-2', 0, '1', 'acme')];
  readonly changes: { action: string; name: string; by: string }[] = [];
  /** What the next state change says of its notice (null: published, or none due). */
  noticeError: string | null = null;
  readonly replays: ReplayRequest[] = [];
  /** What the next replays fail with (null: they succeed). */
  replayError: Error | null = null;

  /** What the next overview throws, once (Kafka away, say). */
  overviewError: Error | null = null;

  async overview() {
    const err = this.overviewError;
    this.overviewError = null;
    if (err !== null) throw err;
    return { subscribers: this.subscribers, problems: [] };
  }

  async subscriber(name: string): Promise<SubscriberView> {
    const r = this.records.get(name);
    if (r === undefined) throw new CatalogError('UNKNOWN_SUBSCRIBER', `no subscriber "${name}"`, false);
    return {
      record: r,
      ledger: [
        {
          partition: 0,
          committed: '3',
          end: '10',
          lag: 7,
          retentionHeadroomSeconds: 5400,
          retentionHeadroomBasis: 'time',
          oldestOwedAt: '2026-06-01T10:00:00.000Z',
        },
      ],
      retentionHeadroomSeconds: 5400,
      retentionHeadroomBasis: 'time',
      retentionHeadroomError: null,
      tiers: [{ tier: 1, topic: `hookstream.sub.${name}.retry.1`, delayMs: 1000, exists: true, waiting: 1 }],
      dlqDepth: this.letters.length,
      attempts: [],
      attemptsSinceMs: 0,
    };
  }

  async changeState(request: { action: 'pause' | 'resume'; name: string; by: string }) {
    this.changes.push(request);
    const r = this.records.get(request.name);
    if (r === undefined) throw new Error('unknown');
    return {
      name: request.name,
      changed: true,
      state: r.state,
      published: null,
      noticeError: this.noticeError,
    };
  }

  async deadLetters(): Promise<DeadLetter[]> {
    return this.letters;
  }

  async replay(request: ReplayRequest): Promise<ReplaySummary> {
    this.replays.push(request);
    if (this.replayError !== null) throw this.replayError;
    request.onProgress?.(1, 1);
    const chosen = this.letters.filter(
      (l) => request.selection.eventIds.length === 0 || request.selection.eventIds.includes(l.eventId ?? ''),
    );
    return {
      replayId: 'rpl_test',
      subscriber: request.subscriber,
      dryRun: request.dryRun,
      topic: 'hookstream.sub.orders.retry.1',
      selected: chosen.length,
      replayed: chosen.map((l) => ({
        eventId: l.eventId,
        dlq: `dlq:0:${l.location.offset}`,
        detail: 'tier',
      })),
      alreadyReplayed: [],
      unreplayable: [],
    };
  }

  async ledger(eventId: string): Promise<LedgerView> {
    return {
      eventId,
      origin: { topic: 'events', partition: 0, offset: '4' },
      foundIn: 'attempt-log',
      tenant: 'acme',
      counts: { delivered: 1, filtered: 2 },
      subscribers: [
        { subscriber: 'orders', origin: null, ledger: { state: 'delivered', at: 'now', attempt: 1 } },
        {
          subscriber: 'audit',
          origin: { topic: 'events', partition: 0, offset: '4' },
          ledger: { state: 'filtered', at: null, eventType: 'order.created', committed: '9' },
        },
        {
          subscriber: 'globex-orders',
          origin: { topic: 'events', partition: 0, offset: '4' },
          ledger: { state: 'filtered', at: null, tenant: 'acme', committed: '9' },
        },
        {
          subscriber: 'billing',
          origin: { topic: 'events', partition: 0, offset: '4' },
          ledger: {
            state: 'delivered',
            at: '2026-12-04T10:00:01.000Z',
            attempt: 1,
            status: 204,
            rewind: { at: '2026-12-04T10:00:00.000Z', by: 'alice<ops>' },
          },
        },
      ],
    };
  }

  async traceIds(): Promise<string[]> {
    return ['abc123'];
  }

  async catalogue(): Promise<CatalogueEntry[]> {
    return [
      {
        type: 'order.created',
        subject: 'x.OrderCreated',
        schema: { type: 'record' },
        subscribers: ['orders'],
      },
    ];
  }
}
