import { CE_HEADER, type SubscriberRecord } from '@hookstream/contracts';
import {
  type ManagementPorts,
  ManagementService,
  type MessageDetail,
  type MessageSummary,
} from '@hookstream/management';
import { foldRegistry, RevisionMismatchError } from '@hookstream/subscribers';

/**
 * A ManagementService over in-memory ports, for a real ApiServer in the client's tests: the
 * catalog as a map, one dead letter per subscriber, replays that find nothing to send, one
 * event (`evt-1`, no tenant) to resend and one message of tenant `acme` in the message index
 * (its record at offset 42, for its payload).
 */
export function fakeService(): ManagementService {
  const records = new Map<string, SubscriberRecord>();
  const revisions = new Map<string, string>();
  let offset = 0;
  const ports: ManagementPorts = {
    eventsTopic: 'events',
    secretsKey: undefined,
    catalog: {
      read: async () => ({
        ...foldRegistry([]),
        subscribers: new Map(records),
        revisions: new Map(revisions),
      }),
      write: async (rs) => {
        for (const r of rs) {
          records.set(r.definition.name, r);
          revisions.set(r.definition.name, String(offset++));
        }
      },
      writeIfRevision: async (record, expected) => {
        const name = record.definition.name;
        const current = revisions.get(name);
        if ((expected === 'absent' ? undefined : expected) !== current)
          throw new RevisionMismatchError(name, expected, current ?? null);
        records.set(name, record);
        const revision = String(offset++);
        revisions.set(name, revision);
        return revision;
      },
    },
    commitStart: async () => undefined,
    deleteSubscriber: async (request) => {
      records.delete(request.name);
      revisions.delete(request.name);
      return { name: request.name, deleted: true, purged: null, bound: false };
    },
    rewind: async (request) => ({
      name: request.name,
      plan: {
        partitions: [{ partition: 0, from: 5, to: 0, resend: 5, deleted: 0 }],
        resend: 5,
        rangeDeleted: false,
      },
      applied: !request.dryRun,
      pausedForIt: false,
    }),
    openPublisher: async () => {
      throw new Error('no notices in these tests');
    },
    overviews: async () => ({ rows: [], headroomError: null }),
    instanceStatuses: async () => [],
    readDeadLetters: async () => [],
    replayDeadLetters: async (request) => ({
      replayId: 'r1',
      subscriber: request.subscriber,
      dryRun: request.dryRun,
      topic: `hookstream.sub.${request.subscriber}.retry.1`,
      selected: 0,
      replayed: [],
      alreadyReplayed: [],
      unreplayable: [],
    }),
    ledger: async (eventId) => ({
      eventId,
      origin: eventId === 'evt-1' ? EVT_1 : eventId === 'msg-1' ? MSG_1 : null,
      foundIn: null,
      tenant: null,
      subscribers: [],
      otherGroups: 0,
    }),
    eventTypes: () => [{ type: 'order.created', subject: 'order.created-value', schema: {} }],
    audit: { write: async () => undefined },
    readAudit: async () => ({ records: [] }),
    now: () => new Date(),
    readRecordAt: async (at) => {
      const id = at.offset === EVT_1.offset ? 'evt-1' : at.offset === MSG_1.offset ? 'msg-1' : null;
      if (id === null) return null;
      return {
        key: id,
        value: Buffer.from('x'),
        headers: { [CE_HEADER.id]: id, [CE_HEADER.type]: 'order.created' },
      };
    },
    sendToRetryTier: async (subscriber) => ({
      topic: `hookstream.sub.${subscriber}.retry.1`,
      partition: 0,
      offset: '0',
    }),
    examples: {
      encode: async (event) => ({
        key: event.id,
        value: Buffer.from('x'),
        headers: { [CE_HEADER.id]: event.id },
      }),
    },
    messages: {
      list: async (query) => ({
        items: query.tenant === MESSAGE.tenant ? [summaryOf(MESSAGE)] : [],
        nextCursor: null,
      }),
      get: async (tenant, eventId) =>
        tenant === MESSAGE.tenant && eventId === MESSAGE.eventId ? MESSAGE : null,
      origin: async (tenant, eventId) =>
        tenant === MESSAGE.tenant && eventId === MESSAGE.eventId ? MSG_1 : null,
    },
  };
  return new ManagementService(ports);
}

const EVT_1 = { topic: 'events', partition: 0, offset: '41' };
/** Where the index's message's record is: its payload is read from there. */
const MSG_1 = { topic: 'events', partition: 0, offset: '42' };

/** The index's one message: tenant acme's, delivered to one endpoint. */
export const MESSAGE: MessageDetail = {
  eventId: 'msg-1',
  type: 'order.created',
  tenant: 'acme',
  firstAt: '2026-02-01T00:00:00.000Z',
  lastAt: '2026-02-01T00:00:01.000Z',
  state: 'delivered',
  endpoints: [
    {
      subscriber: 'cov',
      step: 'delivered',
      attempts: 1,
      lastStatus: 200,
      lastAt: '2026-02-01T00:00:01.000Z',
    },
  ],
  attempts: [
    {
      subscriber: 'cov',
      attempt: 1,
      step: 'delivered',
      at: '2026-02-01T00:00:01.000Z',
      status: 200,
      durationMs: 9,
    },
  ],
};

function summaryOf(detail: MessageDetail): MessageSummary {
  const { attempts: _attempts, ...summary } = detail;
  return summary;
}
