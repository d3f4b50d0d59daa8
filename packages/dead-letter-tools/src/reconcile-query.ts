import {
  CE_HEADER,
  dlqTopicName,
  registrationKey,
  replayLogTopicName,
  retryTierOf,
  subscriberGroupId,
  tenantOf,
} from '@hookstream/contracts';
import {
  type ConsumedRecord,
  type KafkaAdmin,
  type KafkaConnection,
  KafkaReadError,
  type StreamedTopic,
  streamTopic,
} from '@hookstream/kafka';
import {
  classifyObligation,
  ledgerDetail,
  lostInWindow,
  obligation,
  type PartitionLedger,
  ReconcileTally,
  ReplayError,
  type RequiredSubscriber,
  type RetentionBoundary,
  reconcileExitCode,
  requiredSubscriber,
  SubscriberEvidence,
  type SubscriberTally,
  type WindowPartition,
} from '@hookstream/replay';
import { SubscriberCatalog } from '@hookstream/subscribers';

/** Copies are written after their event; their evidence topics are read from a little before the window, for clocks. */
const CLOCK_SKEW_MS = 5 * 60_000;

export interface ReconcileQuery {
  readonly eventsTopic: string;
  readonly fromMs: number;
  readonly toMs: number;
  /** Only events of these types (ce_type); all when absent. */
  readonly types?: readonly string[] | undefined;
  /** Only these required subscribers; every required one in the catalog when absent. */
  readonly subscribers?: readonly string[] | undefined;
  /** Ids listed per state and subscriber (default 20). */
  readonly sampleSize?: number;
  /** After each batch of the events topic: records read of the window's total. */
  readonly onProgress?: (read: number, total: number) => void;
}

export interface ReconcileReport {
  readonly eventsTopic: string;
  readonly from: string;
  readonly to: string;
  /** Records of the window read (before --type). */
  readonly read: number;
  /** Of those, events of the types asked for. */
  readonly events: number;
  readonly window: readonly WindowPartition[];
  /** Where retention cut into the window (the latest such cut); null when the window is whole. */
  readonly boundary: RetentionBoundary | null;
  readonly subscribers: readonly SubscriberTally[];
  /** Per subscriber: failure copies indexed (the index's size) and records that were not evidence. */
  readonly evidence: readonly { subscriber: string; copies: number; unreadable: number }[];
  readonly exitCode: 0 | 1 | 3;
}

/**
 * `hookstream reconcile`: every event of the window (by Kafka timestamp) against every required
 * subscriber that owes it. Reads, in this order, so that nothing settled escapes the evidence:
 * the catalog; each subscriber's committed offsets (events topic and tiers); its tiers, DLQ and
 * replay log from the window's start (small: only failures leave records there); then streams
 * the events topic window once, headers only. A record below a ledger read first had its copy
 * written before that read, so the later read of the tiers and the DLQ holds it.
 */
export async function reconcile(kafka: KafkaConnection, query: ReconcileQuery): Promise<ReconcileReport> {
  const subscribers = await requiredSubscribers(kafka, query);
  const admin = kafka.admin();
  await admin.connect();
  const cuts: RetentionBoundary[] = [];
  const evidence = new Map<string, SubscriberEvidence>();
  const ledgers = new Map<string, PartitionLedger>();
  let window: WindowPartition[] = [];
  let read = 0;
  let events = 0;
  const tally = new ReconcileTally(
    subscribers.map((s) => s.name),
    query.sampleSize,
  );
  try {
    if (!(await admin.topicExists(query.eventsTopic)))
      throw new ReplayError('NO_EVENTS_TOPIC', `the events topic ${query.eventsTopic} does not exist`);
    const topics = await admin.listTopics();
    const tiersOf = new Map<string, { topic: string; tier: number }[]>();
    for (const s of subscribers) {
      ledgers.set(s.name, await committed(admin, s.name, query.eventsTopic));
      const ev = new SubscriberEvidence(s.name, query.eventsTopic);
      const tiers = topics
        .map((topic) => ({ topic, tier: retryTierOf(s.name, topic) }))
        .filter((t): t is { topic: string; tier: number } => t.tier !== null);
      for (const t of tiers) ev.setTierLedger(t.topic, await committed(admin, s.name, t.topic));
      tiersOf.set(s.name, tiers);
      evidence.set(s.name, ev);
    }
    const since = { timestampMs: query.fromMs - CLOCK_SKEW_MS };
    for (const s of subscribers) {
      const ev = evidence.get(s.name);
      if (ev === undefined) continue;
      for (const t of tiersOf.get(s.name) ?? []) {
        const streamed = await readEvidence(kafka, t.topic, since, false, (r) => ev.addTierRecord(r, t.tier));
        cuts.push(...(await cutsOf(admin, streamed, query.fromMs, true)));
      }
      const dlq = await readEvidence(kafka, dlqTopicName(s.name), since, false, (r) => ev.addDlqRecord(r));
      cuts.push(...(await cutsOf(admin, dlq, query.fromMs, true)));
      const log = await readEvidence(kafka, replayLogTopicName(s.name), since, true, (r) =>
        ev.addReplayLogRecord(r),
      );
      cuts.push(...(await cutsOf(admin, log, query.fromMs, true)));
    }
    const types = query.types === undefined || query.types.length === 0 ? null : new Set(query.types);
    let total = 0;
    const streamed = await streamTopic(kafka, {
      topic: query.eventsTopic,
      from: { timestampMs: query.fromMs },
      to: { timestampMs: query.toMs },
      // A filter on attributes may read any ce_ header; without one, these are enough.
      ...(subscribers.some((s) => s.filtersAttributes)
        ? {}
        : { headers: [CE_HEADER.id, CE_HEADER.type, CE_HEADER.tenant] }),
      withoutValues: true,
      purpose: 'reconcile',
      onPlan: (partitions) => {
        total = partitions.reduce((n, p) => n + Number(BigInt(p.end) - BigInt(p.start)), 0);
      },
      onBatch: (records) => {
        read += records.length;
        for (const record of records) {
          const type = record.headers[CE_HEADER.type] ?? null;
          if (types !== null && (type === null || !types.has(type))) continue;
          events++;
          judge(record, type, subscribers, ledgers, evidence, tally);
        }
        query.onProgress?.(read, total);
      },
    });
    window = streamed.partitions.map((p) => ({
      partition: p.partition,
      start: p.start,
      end: p.end,
      cut: p.cut !== null,
    }));
    cuts.push(...(await cutsOf(admin, streamed, query.fromMs)));
    for (const s of subscribers)
      for (const range of evidence.get(s.name)?.lost ?? [])
        if (lostInWindow(range, query.eventsTopic, query.fromMs, window))
          if (tally.count(s.name, 'lost', range.lostCount))
            tally.list(s.name, 'lost', {
              eventId: '-',
              location: `${range.topic}:${range.partition}:${range.lostFrom}-${range.lostTo}`,
              detail: `${range.lostCount} record(s) retention deleted unread (dead letter ${range.dlq.topic}:${range.dlq.partition}:${range.dlq.offset})`,
            });
  } finally {
    await admin.disconnect();
  }
  const boundary = latest(cuts);
  const tallies = tally.result();
  return {
    eventsTopic: query.eventsTopic,
    from: new Date(query.fromMs).toISOString(),
    to: new Date(query.toMs).toISOString(),
    read,
    events,
    window,
    boundary,
    subscribers: tallies,
    evidence: subscribers.map((s) => ({
      subscriber: s.name,
      copies: evidence.get(s.name)?.size ?? 0,
      unreadable: evidence.get(s.name)?.unreadable ?? 0,
    })),
    exitCode: reconcileExitCode(tallies, boundary),
  };
}

function judge(
  record: ConsumedRecord,
  type: string | null,
  subscribers: readonly RequiredSubscriber[],
  ledgers: ReadonlyMap<string, PartitionLedger>,
  evidence: ReadonlyMap<string, SubscriberEvidence>,
  tally: ReconcileTally,
): void {
  for (const s of subscribers) {
    const owes = obligation(s, {
      type,
      tenant: tenantOf(record.headers),
      timestampMs: record.timestampMs,
      headers: record.headers,
    });
    if (owes === 'not-owed') {
      tally.notOwed(s.name);
      continue;
    }
    if (owes === 'filtered') {
      tally.count(s.name, 'filtered');
      continue;
    }
    const ev = evidence.get(s.name);
    const ledger = ledgers.get(s.name);
    if (ev === undefined || ledger === undefined) continue;
    const verdict = classifyObligation(record, ledger, ev);
    // Built only for the few obligations listed: a window of millions allocates nothing per event.
    if (tally.count(s.name, verdict.state))
      tally.list(s.name, verdict.state, {
        eventId: record.headers[CE_HEADER.id] ?? '-',
        location: `${record.topic}:${record.partition}:${record.offset}`,
        detail: verdict.detail ?? ledgerDetail(record.offset, ledger.get(record.partition) ?? null),
      });
  }
}

/** The catalog's required subscribers (or the ones asked for, which must be required). */
async function requiredSubscribers(
  kafka: KafkaConnection,
  query: ReconcileQuery,
): Promise<RequiredSubscriber[]> {
  const snapshot = await new SubscriberCatalog(kafka).read();
  const names =
    query.subscribers === undefined || query.subscribers.length === 0
      ? [...snapshot.subscribers.keys()].sort()
      : [...new Set(query.subscribers)];
  const out: RequiredSubscriber[] = [];
  for (const name of names) {
    const record = snapshot.subscribers.get(name);
    const started = snapshot.registeredAt.get(registrationKey(name, query.eventsTopic)) ?? null;
    const required = record === undefined ? null : requiredSubscriber(record.definition, started);
    if (required !== null) out.push(required);
    else if (query.subscribers !== undefined && query.subscribers.length > 0)
      throw new ReplayError(
        'BAD_OPTION',
        record === undefined
          ? `--subscriber: ${name} is not in the catalog`
          : `--subscriber: ${name} is not required (its definition has no "required": true)`,
      );
  }
  return out;
}

async function committed(admin: KafkaAdmin, name: string, topic: string): Promise<PartitionLedger> {
  const offsets = await admin.committedOffsets(subscriberGroupId(name), topic);
  return new Map(offsets.map((o) => [o.partition, o.offset]));
}

/** Reads one evidence topic from `since` to its end; a topic not created yet holds no evidence. */
async function readEvidence(
  kafka: KafkaConnection,
  topic: string,
  since: { timestampMs: number },
  values: boolean,
  add: (record: ConsumedRecord) => void,
): Promise<StreamedTopic | null> {
  try {
    return await streamTopic(kafka, {
      topic,
      from: since,
      withoutValues: !values,
      purpose: 'reconcile',
      onBatch: (records) => {
        for (const r of records) add(r);
      },
    });
  } catch (err) {
    if (err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC') return null;
    throw err;
  }
}

/**
 * Partitions whose log start cut into the window: the first record still held is later than
 * the window's start. A partition retention emptied (it holds nothing) lost only records older
 * than its retention.ms, so it cuts the window only when that reaches past the window's start.
 *
 * `own`: one of the subscriber's own topics (a tier, the DLQ, the replay log). Those are sparse:
 * a DLQ whose one old dead letter aged out and whose next came yesterday holds nothing of the
 * window's start, yet lost nothing in it. There a deletion counts only when retention could have
 * reached into the window (retention.ms past its start, retention.bytes set, or neither set, so
 * the deletion was by hand); a tier's records deleted unread are `lost` dead letters anyway.
 * On the events topic every cut counts: a deletion by hand there leaves no other trace.
 */
async function cutsOf(
  admin: KafkaAdmin,
  streamed: StreamedTopic | null,
  fromMs: number,
  own = false,
): Promise<RetentionBoundary[]> {
  if (streamed === null) return [];
  const out: RetentionBoundary[] = [];
  let config: Record<string, string> | null | undefined;
  const topicConfig = async () => {
    config ??= await admin.topicConfig(streamed.topic);
    return config;
  };
  for (const p of streamed.partitions) {
    if (p.cut === null) continue;
    if (p.cut.firstKeptMs !== null) {
      if (p.cut.firstKeptMs <= fromMs) continue;
      if (own && !retentionReaches(await topicConfig(), fromMs)) continue;
      out.push({ topic: streamed.topic, partition: p.partition, firstKeptMs: p.cut.firstKeptMs });
      continue;
    }
    const retentionMs = Number((await topicConfig())?.['retention.ms'] ?? -1);
    if (retentionMs < 0 || Date.now() - retentionMs > fromMs)
      out.push({ topic: streamed.topic, partition: p.partition, firstKeptMs: null });
  }
  return out;
}

/** Whether the topic's retention could have deleted records written since `fromMs`. */
function retentionReaches(config: Record<string, string> | null, fromMs: number): boolean {
  const retentionMs = Number(config?.['retention.ms'] ?? -1);
  const retentionBytes = Number(config?.['retention.bytes'] ?? -1);
  if (retentionBytes >= 0) return true;
  if (!Number.isFinite(retentionMs) || retentionMs < 0) return true;
  return Date.now() - retentionMs > fromMs;
}

/** The cut furthest into the window: a partition that holds nothing, else the latest first record. */
function latest(cuts: readonly RetentionBoundary[]): RetentionBoundary | null {
  let best: RetentionBoundary | null = null;
  for (const c of cuts) {
    if (best === null) best = c;
    else if (best.firstKeptMs === null) continue;
    else if (c.firstKeptMs === null || c.firstKeptMs > best.firstKeptMs) best = c;
  }
  return best;
}
