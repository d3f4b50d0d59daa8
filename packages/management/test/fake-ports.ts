import type { AuditActor, AuditRecord, SubscriberRecord } from '@hookstream/contracts';
import { CE_HEADER, formatLocation, type RecordLocation } from '@hookstream/contracts';
import type { TierRecord } from '@hookstream/replay';
import {
  type CatalogSnapshot,
  type DeleteRequest,
  RevisionMismatchError,
  type RewindRequest,
} from '@hookstream/subscribers';
import {
  ManagementError,
  type ManagementPorts,
  type MessageDetail,
  type MessageIndexQuery,
  type StoredRecord,
} from '../src/index.ts';

/** An event as the fake events topic holds it: where, and the record. */
export interface FakeEvent {
  readonly at: RecordLocation;
  readonly record: StoredRecord;
}

/** An events-topic record of an event: its ce_* headers, an opaque value. */
export function storedEvent(id: string, type: string, tenant?: string, offset = '7'): FakeEvent {
  return {
    at: { topic: 'events', partition: 0, offset },
    record: {
      key: `key-${id}`,
      value: Buffer.from(`value of ${id}`),
      headers: {
        [CE_HEADER.id]: id,
        [CE_HEADER.type]: type,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        ...(tenant === undefined ? {} : { [CE_HEADER.tenant]: tenant }),
      },
    },
  };
}

/** A record as the catalog would hold it (active, version 2 or 4 with a tenant). */
export function record(name: string, tenant?: string): SubscriberRecord {
  return {
    version: tenant === undefined ? 2 : 4,
    definition: {
      name,
      url: `https://${name}.example.com/hook`,
      eventTypes: ['*'],
      rate: { perSecond: 50, burst: 0 },
      concurrency: 10,
      timeoutMs: 10_000,
      retry: { delaysMs: [1000], maxAttempts: 6, maxAgeMs: 86_400_000, jitter: 0.2 },
      start: 'latest',
      ordering: 'none',
      headers: {},
      allowPrivateNetwork: false,
      ...(tenant === undefined ? {} : { tenant }),
    },
    state: { kind: 'active' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

/** In-memory ports: the catalog as a map, writes and audit records kept for the test to read. */
export function fakePorts(
  records: readonly SubscriberRecord[],
  bindings: Record<string, string | null> = {},
) {
  const subscribers = new Map(records.map((r) => [r.definition.name, r]));
  // Revisions as the catalog topic gives them: the offset of the write in effect.
  let offset = 0;
  const revisions = new Map(records.map((r) => [r.definition.name, String(offset++)]));
  const writes: SubscriberRecord[][] = [];
  const audit: AuditRecord[] = [];
  const deletes: DeleteRequest[] = [];
  const rewinds: { request: RewindRequest; actor: AuditActor }[] = [];
  /** The subscribers whose start was committed, in order; `failStart` makes the next one fail. */
  const starts: string[] = [];
  const failStart = { next: null as Error | null };
  /** The events topic by event id; the ledger finds their origin there. */
  const events = new Map<string, FakeEvent>();
  /** Records written to retry tiers; subscribers in `noTier` have none. */
  const tierWrites: { subscriber: string; record: TierRecord }[] = [];
  const noTier = new Set<string>();
  /** The message index's answers and what it was asked. */
  const index = {
    messages: [] as MessageDetail[],
    /** Origins the index names, by `tenant/eventId`. */
    origins: new Map<string, RecordLocation>(),
    lists: [] as MessageIndexQuery[],
    gets: [] as { tenant: string; eventId: string; subscribers: readonly string[] | undefined }[],
  };
  /** Event ids the ledger query was asked about, in order, and the record each was told of. */
  const ledgerAsks: string[] = [];
  const ledgerOrigins: (RecordLocation | undefined)[] = [];
  const snapshot = (): CatalogSnapshot => ({
    subscribers: new Map(subscribers),
    revisions: new Map(revisions),
    lost: [],
    problems: [],
    registrations: new Map(),
    registeredAt: new Map(),
    bindings: new Map(
      Object.entries(bindings).map(([name, tenant]) => [
        name,
        { name, tenant, boundAt: '2026-01-01T00:00:00Z' },
      ]),
    ),
  });
  const ports: ManagementPorts = {
    eventsTopic: 'events',
    secretsKey: undefined,
    catalog: {
      read: async () => snapshot(),
      write: async (written) => {
        writes.push([...written]);
        for (const r of written) {
          subscribers.set(r.definition.name, r);
          revisions.set(r.definition.name, String(offset++));
        }
      },
      writeIfRevision: async (record, expected) => {
        const name = record.definition.name;
        const current = revisions.get(name);
        if ((expected === 'absent' ? undefined : expected) !== current)
          throw new RevisionMismatchError(name, expected, current ?? null);
        writes.push([record]);
        subscribers.set(name, record);
        const revision = String(offset++);
        revisions.set(name, revision);
        return revision;
      },
    },
    commitStart: async (definition) => {
      const failure = failStart.next;
      failStart.next = null;
      if (failure !== null) throw failure;
      starts.push(definition.name);
    },
    deleteSubscriber: async (request) => {
      if (request.expectedRevision !== undefined && request.expectedRevision !== revisions.get(request.name))
        throw new RevisionMismatchError(
          request.name,
          request.expectedRevision,
          revisions.get(request.name) ?? null,
        );
      deletes.push(request);
      subscribers.delete(request.name);
      revisions.delete(request.name);
      return { name: request.name, deleted: true, purged: null, bound: false };
    },
    rewind: async (request, context) => {
      rewinds.push({ request, actor: context.actor });
      const partitions = [{ partition: 0, from: 10, to: 4, resend: 6, deleted: 0 }];
      const plan = { partitions, resend: 6, rangeDeleted: false };
      return { name: request.name, plan, applied: !request.dryRun, pausedForIt: false };
    },
    openPublisher: async () => {
      throw new Error('no notices in these tests');
    },
    overviews: async (rs) => ({
      rows: rs.map((r) => ({
        name: r.definition.name,
        state: r.state,
        host: 'x',
        eventTypes: ['*'],
        lag: 7,
        oldestUnsettledAgeMs: null,
        retentionHeadroomSeconds: 'unbounded' as const,
        retentionHeadroomBasis: null,
        dlqDepth: 0,
        breaker: null,
        recent: null,
        instances: [],
        failedOn: [],
      })),
      headroomError: null,
    }),
    instanceStatuses: async () => [],
    readDeadLetters: async () => [],
    replayDeadLetters: async () => {
      throw new Error('no replays in these tests');
    },
    ledger: async (eventId, knownOrigin) => {
      ledgerAsks.push(eventId);
      ledgerOrigins.push(knownOrigin);
      return {
        eventId,
        origin: events.get(eventId)?.at ?? null,
        foundIn: events.has(eventId) ? 'attempt-log' : null,
        tenant: 'acme',
        subscribers: [],
        otherGroups: 0,
      };
    },
    eventTypes: () => [
      {
        type: 'order.created',
        subject: 'order.created-value',
        schema: { type: 'record', name: 'OrderCreated', fields: [{ name: 'id', type: 'string' }] },
      },
      {
        type: 'order.shipped',
        subject: 'order.shipped-value',
        schema: { type: 'record', name: 'S', fields: [] },
      },
      { type: 'subscriber.disabled', subject: 'x', schema: { type: 'record', name: 'D', fields: [] } },
    ],
    readRecordAt: async (at) =>
      [...events.values()].find((e) => formatLocation(e.at) === formatLocation(at))?.record ?? null,
    sendToRetryTier: async (subscriber, record) => {
      if (noTier.has(subscriber)) throw new ManagementError('no_retry_tier', `no tier for ${subscriber}`);
      tierWrites.push({ subscriber, record });
      return {
        topic: `hookstream.sub.${subscriber}.retry.1`,
        partition: 0,
        offset: String(tierWrites.length),
      };
    },
    examples: {
      encode: async (event) => ({
        key: event.id,
        value: Buffer.from(JSON.stringify(event.data)),
        headers: {
          [CE_HEADER.id]: event.id,
          [CE_HEADER.type]: event.type,
          [CE_HEADER.source]: event.source,
          [CE_HEADER.time]: event.time,
          ...(event.tenant === undefined ? {} : { [CE_HEADER.tenant]: event.tenant }),
        },
      }),
    },
    messages: {
      list: async (query) => {
        index.lists.push(query);
        const items = index.messages.filter((m) => m.tenant === query.tenant).slice(0, query.limit);
        return { items: items.map(({ attempts: _a, ...summary }) => summary), nextCursor: null };
      },
      get: async (tenant, eventId, subscribers) => {
        index.gets.push({ tenant, eventId, subscribers });
        return index.messages.find((m) => m.eventId === eventId) ?? null;
      },
      origin: async (tenant, eventId) => index.origins.get(`${tenant}/${eventId}`) ?? null,
    },
    audit: {
      write: async (rs) => {
        audit.push(...rs);
      },
    },
    readAudit: async (selection) => ({
      records: audit.filter((r) => selection.tenant === undefined || r.tenant === selection.tenant),
    }),
    now: () => new Date('2026-02-01T00:00:00.000Z'),
  };
  return {
    ports,
    writes,
    audit,
    deletes,
    rewinds,
    subscribers,
    starts,
    failStart,
    events,
    ledgerAsks,
    ledgerOrigins,
    tierWrites,
    noTier,
    index,
  };
}
