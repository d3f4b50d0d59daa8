import type { SubscriberRecord } from '@hookstream/contracts';
import { type ManagementPorts, ManagementService } from '@hookstream/management';
import { foldRegistry, RevisionMismatchError } from '@hookstream/subscribers';

/**
 * A ManagementService over in-memory ports, for a real ApiServer in the client's tests: the
 * catalog as a map, one dead letter per subscriber, replays that find nothing to send.
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
      origin: null,
      foundIn: null,
      tenant: null,
      subscribers: [],
      otherGroups: 0,
    }),
    eventTypes: () => [{ type: 'order.created', subject: 'order.created-value', schema: {} }],
    audit: { write: async () => undefined },
    readAudit: async () => ({ records: [] }),
    now: () => new Date(),
  };
  return new ManagementService(ports);
}
