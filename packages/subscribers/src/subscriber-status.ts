import { retryTierOf, type SubscriberRecord, subscriberNames } from '@hookstream/contracts';
import type { CatalogKafka } from './subscriber-catalog.ts';

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

/** Lag and DLQ depth of each subscriber, a few at a time so a big catalog does not flood the broker. */
export async function subscriberLoads(
  kafka: CatalogKafka,
  records: readonly SubscriberRecord[],
  eventsTopic: string,
): Promise<SubscriberLoad[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // One listing for every row: a catalog of thousands must not list topics per subscriber.
    const existing = new Set(await admin.listTopics());
    const hasEvents = existing.has(eventsTopic);
    const out: SubscriberLoad[] = [];
    for (let i = 0; i < records.length; i += 8) {
      const slice = records.slice(i, i + 8);
      out.push(
        ...(await Promise.all(
          slice.map(async (r) => {
            const t = subscriberNames(r.definition);
            let lag: number | null = null;
            if (hasEvents) {
              const committed = await admin.committedOffsets(t.group, eventsTopic);
              if (committed.some((c) => c.offset !== null))
                lag = (await admin.groupLag(t.group, [eventsTopic]))[0]?.lag ?? null;
            }
            const dlqDepth = existing.has(t.dlq) ? await admin.topicDepth(t.dlq) : null;
            return { name: r.definition.name, lag, dlqDepth };
          }),
        )),
      );
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** The ledger per partition of the events topic, and each retry tier, for `subscribers show`. */
export async function subscriberDetail(
  kafka: CatalogKafka,
  record: SubscriberRecord,
  eventsTopic: string,
): Promise<{
  ledger: PartitionLedger[] | null;
  tiers: TierStatus[];
  unlistedTiers: UnlistedTier[];
  dlqDepth: number | null;
}> {
  const t = subscriberNames(record.definition);
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
        return {
          partition: r.partition,
          committed: at,
          end: r.high,
          lag: at === null ? null : Math.max(0, Number(BigInt(r.high) - BigInt(at))),
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
    return { ledger, tiers, unlistedTiers, dlqDepth };
  } finally {
    await admin.disconnect();
  }
}
