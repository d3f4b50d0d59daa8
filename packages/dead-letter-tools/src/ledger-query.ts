import {
  ATTEMPT_LOG_TOPIC,
  type AttemptLogEntry,
  attemptRecordMayHold,
  CE_HEADER,
  EventSelection,
  type RecordLocation,
  SUBSCRIBER_GROUP_PREFIX,
  subscriberGroupId,
  tenantOf,
} from '@hookstream/contracts';
import {
  type ConsumedRecord,
  type KafkaAdmin,
  type KafkaConnection,
  KafkaReadError,
  partitionForKey,
  type ReadTopicOptions,
  readRecordAt,
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
  type TenantFilter,
  type TypeFilter,
} from '@hookstream/replay';
import { SubscriberCatalog } from '@hookstream/subscribers';

/** Producer and pusher clocks may disagree: the read for the event's type starts this much before its first step. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * Where one event is for every subscriber. Reads only the attempt log partition the event id
 * hashes to (the log is keyed by event id with the default partitioner), from shortly before the
 * event's record when the asker knows where that is (`knownOrigin`), else whole; scans the events topic
 * for the ce_id only when no attempt names the event's location, then compares that location with
 * each subscriber group's committed offset. A subscriber past the event without a step is judged
 * by its definition in the catalog against the event's tenant and type (pushers log no step for
 * an event a subscriber does not take). The answer names the event's tenant. Nothing here joins a subscriber's group.
 */
export async function queryLedger(kafka: KafkaConnection, query: LedgerQuery): Promise<LedgerAnswer> {
  const from = query.sinceMs === undefined ? undefined : { timestampMs: query.sinceMs };
  const admin = kafka.admin();
  await admin.connect();
  try {
    const told = from === undefined ? await knownRecord(kafka, query) : null;
    // Every step of the event came after its record was written, clocks allowing.
    const attemptsFrom = told === null ? from : { timestampMs: told.timestampMs - CLOCK_SKEW_MS };
    const entries = await readAttempts(kafka, admin, query.eventId, attemptsFrom);
    let origin = originFromEntries(entries);
    let foundIn: LedgerAnswer['foundIn'] = origin === null ? null : 'attempt-log';
    // undefined: not read (yet); null: read, but not found.
    let event: EventFacts | null | undefined = told === null ? undefined : factsOf(told.headers);
    if (origin === null && told !== null) {
      origin = { topic: told.topic, partition: told.partition, offset: told.offset };
      foundIn = 'events-topic';
    }
    if (origin === null) {
      const record = await scanEvents(kafka, admin, query, from);
      if (record !== null) {
        origin = { topic: record.topic, partition: record.partition, offset: record.offset };
        foundIn = 'events-topic';
        event = factsOf(record.headers);
      }
    }
    // Nowhere in the attempt log, and no events topic to hold it: no subscriber has a ledger there.
    if (origin === null && !(await admin.topicExists(query.eventsTopic)))
      return {
        eventId: query.eventId,
        origin: null,
        foundIn: null,
        tenant: null,
        subscribers: [],
        otherGroups: 0,
      };
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
    // Only subscribers past the event without a step depend on its type and tenant: the catalog is
    // read only then. The event's record is read when its tenant or its type is still needed: an
    // attempt log entry that names a tenant says it, one without may come from a pusher that
    // predates tenants, so only the record says "none".
    const passed = lines.filter((l) => l.ledger.state === 'passed-without-record').map((l) => l.subscriber);
    const filters = origin !== null && passed.length > 0 ? await definitionFilters(kafka, passed) : null;
    const entryTenant = entries.find((e) => e.tenant !== undefined)?.tenant;
    if (
      origin !== null &&
      event === undefined &&
      (entryTenant === undefined || (filters?.types.size ?? 0) > 0)
    )
      event = await eventAt(kafka, origin, query.eventId, entries, query.sinceMs);
    const tenant = event != null ? event.tenant : (entryTenant ?? undefined);
    if (filters !== null && (filters.types.size > 0 || filters.tenants.size > 0)) {
      lines = resolveLedgers({
        ...known,
        eventType: event?.type ?? null,
        filters: filters.types,
        eventTenant: tenant,
        tenantFilters: filters.tenants,
      });
    }
    return {
      eventId: query.eventId,
      origin,
      foundIn,
      tenant: tenant ?? null,
      subscribers: lines,
      otherGroups: names.length - shown.length,
    };
  } finally {
    await admin.disconnect();
  }
}

/** What the ledger needs of the event's record: its ce_type and ce_tenant (null: none). */
interface EventFacts {
  readonly type: string | null;
  readonly tenant: string | null;
}

function factsOf(headers: Readonly<Record<string, string>>): EventFacts {
  return { type: headers[CE_HEADER.type] ?? null, tenant: tenantOf(headers) ?? null };
}

/**
 * The filters of the named subscribers as their catalog definitions state them, with the
 * pusher's rule (EventSelection): type filters of those that do not take every
 * type, tenant filters of those that name a tenant.
 */
async function definitionFilters(
  kafka: KafkaConnection,
  names: readonly string[],
): Promise<{ types: Map<string, TypeFilter>; tenants: Map<string, TenantFilter> }> {
  const { subscribers } = await new SubscriberCatalog(kafka).read();
  const types = new Map<string, TypeFilter>();
  const tenants = new Map<string, TenantFilter>();
  for (const name of names) {
    const definition = subscribers.get(name)?.definition;
    if (definition === undefined) continue;
    // Built once per subscriber, not per record the query judges.
    const selection = EventSelection.of(definition);
    if (selection.types !== null) types.set(name, (type) => selection.takesType(type));
    if (selection.tenant !== null) tenants.set(name, (tenant) => selection.takesTenant(tenant));
  }
  return { types, tenants };
}

/**
 * The ce_type and ce_tenant of the event's record at its origin, or null when the record is gone
 * or is not this event. readTopic has no start offset, so a first read starts shortly before the event's first
 * step (the record was written before it); only when that read began past the origin (clocks too
 * far apart) does a second one start from --since or the partition's earliest record.
 */
async function eventAt(
  kafka: KafkaConnection,
  origin: RecordLocation,
  eventId: string,
  entries: readonly AttemptLogEntry[],
  sinceMs: number | undefined,
): Promise<EventFacts | null> {
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
      return record.headers[CE_HEADER.id] === eventId ? factsOf(record.headers) : null;
    // The read covered the origin and it was not there (retention, compaction): no second read.
    if (lowest !== null && lowest <= target) return null;
  }
  return null;
}

/**
 * The event's record at the location the asker named, when it is there and is this event (an
 * index can be behind a topic's retention); null otherwise, and the query reads as without it.
 */
async function knownRecord(kafka: KafkaConnection, query: LedgerQuery): Promise<ConsumedRecord | null> {
  if (query.knownOrigin === undefined) return null;
  let record: ConsumedRecord | null;
  try {
    record = await readRecordAt(kafka, query.knownOrigin, { purpose: 'ledger' });
  } catch (err) {
    if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return null;
    throw err;
  }
  return record !== null && record.headers[CE_HEADER.id] === query.eventId ? record : null;
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
    keep: (r) => attemptRecordMayHold(r, eventId),
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
