import {
  ATTEMPT_LOG_TOPIC,
  type AttemptLogEntry,
  acceptsEventType,
  CE_HEADER,
  type RecordLocation,
  SUBSCRIBER_GROUP_PREFIX,
  subscriberGroupId,
} from '@hookstream/contracts';
import {
  type ConsumedRecord,
  type KafkaAdmin,
  type KafkaConnection,
  KafkaReadError,
  partitionForKey,
  type ReadTopicOptions,
  readTopic,
} from '@hookstream/kafka';
import {
  attemptEntriesFor,
  type Committed,
  type LedgerAnswer,
  type LedgerQuery,
  originFromEntries,
  resolveLedgers,
  subscribersFromGroups,
  type TypeFilter,
} from '@hookstream/replay';
import { SubscriberCatalog } from '@hookstream/subscribers';

/** Producer and pusher clocks may disagree: the read for the event's type starts this much before its first step. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Where one event is for every subscriber. Reads only the attempt log partition the event id
 * hashes to (the log is keyed by event id with the default partitioner), scans the events topic
 * for the ce_id only when no attempt names the event's location, then compares that location with
 * each subscriber group's committed offset. A subscriber past the event without a step is judged
 * by its definition in the catalog against the event's type (pushers log no step for a type a
 * subscriber does not take). Nothing here joins a subscriber's group.
 */
export async function queryLedger(kafka: KafkaConnection, query: LedgerQuery): Promise<LedgerAnswer> {
  const from = query.sinceMs === undefined ? undefined : { timestampMs: query.sinceMs };
  const admin = kafka.admin();
  await admin.connect();
  try {
    const entries = await readAttempts(kafka, admin, query.eventId, from);
    let origin = originFromEntries(entries);
    let foundIn: LedgerAnswer['foundIn'] = origin === null ? null : 'attempt-log';
    // undefined: not read (yet); null: read, but unknown.
    let eventType: string | null | undefined;
    if (origin === null) {
      const record = await scanEvents(kafka, admin, query, from);
      if (record !== null) {
        origin = { topic: record.topic, partition: record.partition, offset: record.offset };
        foundIn = 'events-topic';
        eventType = record.headers[CE_HEADER.type] ?? null;
      }
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
    const known = { subscribers: shown, entries: relevant, origin, committed };
    let lines = resolveLedgers(known);
    // Only subscribers past the event without a step depend on its type: the catalog, and then the
    // event's record, are read only when one of them takes some types and not others.
    const passed = lines.filter((l) => l.ledger.state === 'passed-without-record').map((l) => l.subscriber);
    if (origin !== null && passed.length > 0) {
      const filters = await narrowFilters(kafka, passed);
      if (filters.size > 0) {
        eventType ??= await eventTypeAt(kafka, origin, query.eventId, entries, query.sinceMs);
        if (eventType !== null) lines = resolveLedgers({ ...known, eventType, filters });
      }
    }
    return {
      eventId: query.eventId,
      origin,
      foundIn,
      subscribers: lines,
      otherGroups: names.length - shown.length,
    };
  } finally {
    await admin.disconnect();
  }
}

/** Type filters of the named subscribers whose catalog definition does not take every type. */
async function narrowFilters(
  kafka: KafkaConnection,
  names: readonly string[],
): Promise<Map<string, TypeFilter>> {
  const { subscribers } = await new SubscriberCatalog(kafka).read();
  const filters = new Map<string, TypeFilter>();
  for (const name of names) {
    const definition = subscribers.get(name)?.definition;
    if (definition === undefined || definition.eventTypes.includes('*')) continue;
    filters.set(name, (type) => acceptsEventType(definition, type));
  }
  return filters;
}

/**
 * The ce_type of the event's record at its origin, or null when the record is gone or is not this
 * event. readTopic has no start offset, so a first read starts shortly before the event's first
 * step (the record was written before it); only when that read began past the origin (clocks too
 * far apart) does a second one start from --since or the partition's earliest record.
 */
async function eventTypeAt(
  kafka: KafkaConnection,
  origin: RecordLocation,
  eventId: string,
  entries: readonly AttemptLogEntry[],
  sinceMs: number | undefined,
): Promise<string | null> {
  const target = BigInt(origin.offset);
  const starts: NonNullable<ReadTopicOptions['from']>[] = [];
  const firstStepMs = Math.min(...entries.map((e) => Date.parse(e.at)));
  const hintMs = firstStepMs - CLOCK_SKEW_MS;
  if (Number.isFinite(hintMs) && (sinceMs === undefined || hintMs > sinceMs))
    starts.push({ timestampMs: hintMs });
  starts.push(sinceMs === undefined ? 'earliest' : { timestampMs: sinceMs });
  for (const from of starts) {
    let lowest: bigint | null = null;
    let found: ConsumedRecord[];
    try {
      found = await readTopic(kafka, {
        topic: origin.topic,
        partitions: [origin.partition],
        from,
        keep: (r) => {
          const offset = BigInt(r.offset);
          if (lowest === null || offset < lowest) lowest = offset;
          return offset === target;
        },
        purpose: 'ledger',
        timeoutMs: 120_000,
      });
    } catch (err) {
      if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return null;
      throw err;
    }
    const record = found[0];
    if (record !== undefined)
      return record.headers[CE_HEADER.id] === eventId ? (record.headers[CE_HEADER.type] ?? null) : null;
    // The read covered the origin and it was not there (retention, compaction): no second read.
    if (lowest !== null && lowest <= target) return null;
  }
  return null;
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

/** The event's record in the events topic (the first with its ce_id), or null. */
async function scanEvents(
  kafka: KafkaConnection,
  admin: KafkaAdmin,
  query: LedgerQuery,
  from: { timestampMs: number } | undefined,
): Promise<ConsumedRecord | null> {
  if (!(await admin.topicExists(query.eventsTopic))) return null;
  const found = await readTopic(kafka, {
    topic: query.eventsTopic,
    keep: (r) => r.headers[CE_HEADER.id] === query.eventId,
    purpose: 'ledger',
    timeoutMs: 120_000,
    ...(from === undefined ? {} : { from }),
  });
  return found[0] ?? null;
}
