import {
  ATTEMPT_LOG_TOPIC,
  type AttemptLogEntry,
  CE_HEADER,
  type RecordLocation,
  SUBSCRIBER_GROUP_PREFIX,
  subscriberGroupId,
} from '@hookstream/contracts';
import { type KafkaAdmin, type KafkaConnection, partitionForKey, readTopic } from '@hookstream/kafka';
import {
  attemptEntriesFor,
  type Committed,
  type LedgerAnswer,
  type LedgerQuery,
  originFromEntries,
  resolveLedgers,
  subscribersFromGroups,
} from '@hookstream/replay';

/**
 * Where one event is for every subscriber. Reads only the attempt log partition the event id
 * hashes to (the log is keyed by event id with the default partitioner), scans the events topic
 * for the ce_id only when no attempt names the event's location, then compares that location with
 * each subscriber group's committed offset. Nothing here joins a subscriber's group.
 */
export async function queryLedger(kafka: KafkaConnection, query: LedgerQuery): Promise<LedgerAnswer> {
  const from = query.sinceMs === undefined ? undefined : { timestampMs: query.sinceMs };
  const admin = kafka.admin();
  await admin.connect();
  try {
    const entries = await readAttempts(kafka, admin, query.eventId, from);
    let origin = originFromEntries(entries);
    let foundIn: LedgerAnswer['foundIn'] = origin === null ? null : 'attempt-log';
    if (origin === null) {
      origin = await scanEvents(kafka, admin, query, from);
      if (origin !== null) foundIn = 'events-topic';
    }
    const groups = subscribersFromGroups(await admin.listGroupIds(SUBSCRIBER_GROUP_PREFIX));
    // --subscriber answers for that one even without a group (it has not started: not reached).
    const names =
      query.subscriber === undefined
        ? [...new Set([...groups, ...entries.map((e) => e.subscriber)])]
        : [query.subscriber];
    const relevant = entries.filter((e) => names.includes(e.subscriber));
    const committed = new Map<string, Committed | null>();
    const topic = origin?.topic ?? query.eventsTopic;
    const shown: string[] = [];
    for (const name of names) {
      const offsets = await admin.committedOffsets(subscriberGroupId(name), topic);
      committed.set(name, new Map(offsets.map((o) => [o.partition, o.offset])));
      const tracksTopic = offsets.some((o) => o.offset !== null);
      if (query.subscriber !== undefined || tracksTopic || relevant.some((e) => e.subscriber === name))
        shown.push(name);
    }
    return {
      eventId: query.eventId,
      origin,
      foundIn,
      subscribers: resolveLedgers({ subscribers: shown, entries: relevant, origin, committed }),
      otherGroups: names.length - shown.length,
    };
  } finally {
    await admin.disconnect();
  }
}

async function readAttempts(
  kafka: KafkaConnection,
  admin: KafkaAdmin,
  eventId: string,
  from: { timestampMs: number } | undefined,
): Promise<AttemptLogEntry[]> {
  const partitions = await admin.partitionCount(ATTEMPT_LOG_TOPIC);
  if (partitions === null || partitions === 0) return [];
  const partition = partitionForKey(ATTEMPT_LOG_TOPIC, eventId, partitions);
  const records = await readTopic(kafka, {
    topic: ATTEMPT_LOG_TOPIC,
    partitions: [partition],
    keep: (r) => r.key === eventId,
    purpose: 'ledger',
    ...(from === undefined ? {} : { from }),
  });
  return attemptEntriesFor(eventId, records);
}

async function scanEvents(
  kafka: KafkaConnection,
  admin: KafkaAdmin,
  query: LedgerQuery,
  from: { timestampMs: number } | undefined,
): Promise<RecordLocation | null> {
  if (!(await admin.topicExists(query.eventsTopic))) return null;
  const found = await readTopic(kafka, {
    topic: query.eventsTopic,
    keep: (r) => r.headers[CE_HEADER.id] === query.eventId,
    purpose: 'ledger',
    timeoutMs: 120_000,
    ...(from === undefined ? {} : { from }),
  });
  const first = found[0];
  return first === undefined
    ? null
    : { topic: first.topic, partition: first.partition, offset: first.offset };
}
