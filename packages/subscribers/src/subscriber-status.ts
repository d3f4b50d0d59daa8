import { retryTierOf, type SubscriberRecord, subscriberNames } from '@hookstream/contracts';
import type { CommittedOffset, KafkaAdmin } from '@hookstream/kafka';
import { HeadroomReader, type PartitionHeadroom } from './headroom-reader.ts';
import { type HeadroomBasis, headroomSeconds, leastHeadroom } from './retention-headroom.ts';
import type { CatalogKafka } from './subscriber-catalog.ts';

/**
 * What a long-running process (the API) keeps between measurements: a connected admin, a recent
 * listing of the topics, and one HeadroomReader (which keeps the events topic's settings and
 * record samples). Without it, each measurement connects and lists on its own.
 */
export interface MeasuringResources {
  readonly admin: KafkaAdmin;
  readonly topics: () => Promise<ReadonlySet<string>>;
  readonly headrooms: HeadroomReader;
}

/** One row of `subscribers list`: null where there is nothing to measure yet. */
export interface SubscriberLoad {
  readonly name: string;
  /** Records of the events topic above the ledger; null before the group committed anything. */
  readonly lag: number | null;
  /** Records in the DLQ; null when the DLQ topic was never created. */
  readonly dlqDepth: number | null;
}

export interface PartitionLedger {
  readonly partition: number;
  /** The next record the group reads; null when it never committed on that partition. */
  readonly committed: string | null;
  readonly end: string;
  readonly lag: number | null;
  /** Seconds until retention reaches the first record not settled; 'unbounded'; null: not measured. */
  readonly retentionHeadroomSeconds: number | 'unbounded' | null;
  /** Which limit comes first (`bytes`: retention.bytes at the last hour's ingest rate); null: none. */
  readonly retentionHeadroomBasis: HeadroomBasis | null;
  /** Kafka timestamp (RFC 3339) of that record; null: nothing owed, or not read. */
  readonly oldestOwedAt: string | null;
}

/** Every subscriber's retention headroom on the events topic, measured once, by name. */
export interface SubscriberHeadrooms {
  readonly byName: ReadonlyMap<string, readonly PartitionHeadroom[]>;
  /** Why nothing could be measured (the topic's settings refused, Kafka down); null: measured. */
  readonly error: string | null;
}

/**
 * Reads the retention headroom of these subscribers on demand (`list`, `show`, the console),
 * as a fleet's watch does; a failure leaves them unmeasured and says why, never failing the caller.
 */
export async function subscriberHeadrooms(
  kafka: CatalogKafka,
  records: readonly SubscriberRecord[],
  eventsTopic: string,
  nowMs: number,
  kept?: MeasuringResources,
): Promise<SubscriberHeadrooms> {
  const admin = kept?.admin ?? kafka.admin();
  try {
    if (kept === undefined) await admin.connect();
    const groups = new Map(records.map((r) => [subscriberNames(r.definition).group, r.definition.name]));
    const reader = kept?.headrooms ?? new HeadroomReader(admin, eventsTopic);
    const reading = await reader.read([...groups.keys()], nowMs);
    const byName = new Map<string, readonly PartitionHeadroom[]>();
    for (const [group, partitions] of reading.groups) {
      const name = groups.get(group);
      if (name !== undefined) byName.set(name, partitions);
    }
    return { byName, error: null };
  } catch (err) {
    return { byName: new Map(), error: err instanceof Error ? err.message : String(err) };
  } finally {
    if (kept === undefined) await admin.disconnect().catch(() => undefined);
  }
}

/** A subscriber's least headroom over its partitions, as `--json` gives it. */
export function overallHeadroom(partitions: readonly PartitionHeadroom[] | undefined): {
  retentionHeadroomSeconds: number | 'unbounded' | null;
  retentionHeadroomBasis: HeadroomBasis | null;
} {
  const least = leastHeadroom((partitions ?? []).map((p) => p.headroom));
  return {
    retentionHeadroomSeconds: headroomSeconds(least),
    retentionHeadroomBasis: least?.kind === 'bounded' ? least.basis : null,
  };
}

export interface TierStatus {
  readonly tier: number;
  readonly topic: string;
  readonly delayMs: number;
  readonly exists: boolean;
  /** Records waiting in the tier above the ledger; null when the topic does not exist. */
  readonly waiting: number | null;
}

/**
 * A tier topic of the subscriber that its definition no longer lists (its retry schedule
 * shrank): its pushers read it until nothing waits there, then leave it.
 */
export interface UnlistedTier {
  readonly tier: number;
  readonly topic: string;
  /** Records waiting in it above the ledger: still to be delivered, by the current schedule. */
  readonly waiting: number;
}

/** Lag and DLQ depth of each subscriber: a few batched requests for all of them, however many. */
export async function subscriberLoads(
  kafka: CatalogKafka,
  records: readonly SubscriberRecord[],
  eventsTopic: string,
  kept?: MeasuringResources,
): Promise<SubscriberLoad[]> {
  const admin = kept?.admin ?? kafka.admin();
  if (kept === undefined) await admin.connect();
  try {
    // One listing for every row: a catalog of thousands must not list topics per subscriber.
    const existing = kept === undefined ? new Set(await admin.listTopics()) : await kept.topics();
    const hasEvents = existing.has(eventsTopic);
    const names = records.map((r) => subscriberNames(r.definition));
    // Every group's ledger in one batch, the topic's end offsets once for all of them, and every
    // existing DLQ's depth in one batch.
    const [ledgers, ranges, depths] = await Promise.all([
      hasEvents
        ? admin.committedOffsetsOfGroups(
            names.map((t) => t.group),
            eventsTopic,
          )
        : new Map<string, CommittedOffset[]>(),
      hasEvents ? admin.existingTopicOffsets(eventsTopic) : null,
      admin.topicDepths(names.map((t) => t.dlq).filter((dlq) => existing.has(dlq))),
    ]);
    return records.map((r): SubscriberLoad => {
      const t = subscriberNames(r.definition);
      return {
        name: r.definition.name,
        lag: ranges === null ? null : ledgerLag(ledgers.get(t.group) ?? [], ranges),
        dlqDepth: depths.get(t.dlq) ?? null,
      };
    });
  } finally {
    if (kept === undefined) await admin.disconnect();
  }
}

/**
 * Records above the ledger over the topic's partitions (a partition it never committed on counts
 * from its low mark, as the subscriber consumer reads it); null before it committed anything.
 */
export function ledgerLag(
  committed: readonly CommittedOffset[],
  ranges: readonly { readonly partition: number; readonly low: string; readonly high: string }[],
): number | null {
  if (!committed.some((c) => c.offset !== null)) return null;
  const at = new Map(committed.map((c) => [c.partition, c.offset]));
  let lag = 0;
  for (const r of ranges) {
    const commit = at.get(r.partition) ?? null;
    lag += Math.max(0, Number(r.high) - Number(commit ?? r.low));
  }
  return lag;
}

/** The ledger per partition of the events topic, and each retry tier, for `subscribers show`. */
export async function subscriberDetail(
  kafka: CatalogKafka,
  record: SubscriberRecord,
  eventsTopic: string,
  nowMs: number = Date.now(),
): Promise<{
  ledger: PartitionLedger[] | null;
  retentionHeadroomSeconds: number | 'unbounded' | null;
  retentionHeadroomBasis: HeadroomBasis | null;
  /** Why the headroom could not be measured; null: it was. */
  retentionHeadroomError: string | null;
  tiers: TierStatus[];
  unlistedTiers: UnlistedTier[];
  dlqDepth: number | null;
}> {
  const t = subscriberNames(record.definition);
  const headrooms = await subscriberHeadrooms(kafka, [record], eventsTopic, nowMs);
  const partitions = headrooms.byName.get(record.definition.name);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ranges = await admin.topicOffsets(eventsTopic);
    let ledger: PartitionLedger[] | null = null;
    if (ranges !== null) {
      const committed = new Map(
        (await admin.committedOffsets(t.group, eventsTopic)).map((c) => [c.partition, c.offset]),
      );
      ledger = ranges.map((r) => {
        const at = committed.get(r.partition) ?? null;
        const h = partitions?.find((p) => p.partition === r.partition);
        const headroom = h?.headroom ?? null;
        return {
          partition: r.partition,
          committed: at,
          end: r.high,
          lag: at === null ? null : Math.max(0, Number(BigInt(r.high) - BigInt(at))),
          retentionHeadroomSeconds: headroomSeconds(headroom),
          retentionHeadroomBasis: headroom?.kind === 'bounded' ? headroom.basis : null,
          oldestOwedAt:
            h?.recordTimestampMs === null || h?.recordTimestampMs === undefined
              ? null
              : new Date(h.recordTimestampMs).toISOString(),
        };
      });
    }
    const existing = new Set(await admin.listTopics());
    const tiers = await Promise.all(
      t.tiers.map(async (tier) => {
        const exists = existing.has(tier.topic);
        const waiting = exists ? ((await admin.groupLag(t.group, [tier.topic]))[0]?.lag ?? 0) : null;
        return { ...tier, exists, waiting };
      }),
    );
    const name = record.definition.name;
    const beyond = [...existing]
      .map((topic) => ({ topic, tier: retryTierOf(name, topic) ?? 0 }))
      .filter((x) => x.tier > t.tiers.length)
      .sort((a, b) => a.tier - b.tier);
    const lags =
      beyond.length === 0
        ? []
        : await admin.groupLag(
            t.group,
            beyond.map((x) => x.topic),
          );
    const unlistedTiers = beyond.map((x) => ({
      ...x,
      waiting: lags.find((l) => l.topic === x.topic)?.lag ?? 0,
    }));
    const dlqDepth = existing.has(t.dlq) ? await admin.topicDepth(t.dlq) : null;
    return {
      ledger,
      ...overallHeadroom(partitions),
      retentionHeadroomError: headrooms.error,
      tiers,
      unlistedTiers,
      dlqDepth,
    };
  } finally {
    await admin.disconnect();
  }
}
