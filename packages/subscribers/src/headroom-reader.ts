import { forEachLimited } from '@hookstream/concurrency';
import type { CommittedOffset, KafkaAdmin, RecordSample } from '@hookstream/kafka';
import {
  type Headroom,
  type PartitionFigures,
  retentionHeadroom,
  type TopicRetention,
  topicRetention,
} from './retention-headroom.ts';

/** One partition of a subscriber's events topic, as the headroom sees it. */
export interface PartitionHeadroom {
  readonly partition: number;
  /** The ledger; null: the group never committed on this partition (nothing to measure). */
  readonly committed: number | null;
  /** Kafka timestamp of the record at the ledger; null: nothing owed, or not read. */
  readonly recordTimestampMs: number | null;
  readonly headroom: Headroom | null;
}

export interface HeadroomReading {
  /** The topic's limits; null: the topic does not exist. */
  readonly retention: TopicRetention | null;
  /** Per group id, its partitions; a group whose ledger could not be read is absent. */
  readonly groups: ReadonlyMap<string, readonly PartitionHeadroom[]>;
}

export interface HeadroomReaderOptions {
  /** The topic's settings are asked again after this long (default 5 min): they rarely change. */
  readonly configTtlMs?: number;
  /** Record samples remembered, by partition and offset (default 10,000): a paused ledger is read once. */
  readonly sampleCacheSize?: number;
  /** Groups whose ledgers are read at once (default 8). */
  readonly concurrency?: number;
}

const HOUR_MS = 3_600_000;

/**
 * Gathers what the retention headroom needs for many subscribers of one events topic, sharing
 * everything that is the topic's: its settings (cached), end offsets, the last hour's offsets
 * (only under retention.bytes) and the records at the ledgers (a record at an offset never
 * changes, so each is read once, and every subscriber at the same offset shares it). The groups' ledgers
 * are read in one batch (one OffsetFetch per coordinator).
 */
export class HeadroomReader {
  readonly #admin: KafkaAdmin;
  readonly #topic: string;
  readonly #configTtlMs: number;
  readonly #cacheSize: number;
  readonly #concurrency: number;
  readonly #samples = new Map<string, RecordSample>();
  #config: { readonly atMs: number; readonly retention: TopicRetention | null } | null = null;

  constructor(admin: KafkaAdmin, topic: string, options: HeadroomReaderOptions = {}) {
    this.#admin = admin;
    this.#topic = topic;
    this.#configTtlMs = options.configTtlMs ?? 300_000;
    this.#cacheSize = Math.max(1, options.sampleCacheSize ?? 10_000);
    this.#concurrency = Math.max(1, options.concurrency ?? 8);
  }

  /** One look at these groups' ledgers on the topic, at `nowMs`. Throws when the topic cannot be read. */
  async read(groupIds: readonly string[], nowMs: number): Promise<HeadroomReading> {
    const retention = await this.#retention(nowMs);
    const groups = new Map<string, PartitionHeadroom[]>();
    if (retention === null) return { retention, groups };
    // Its settings were read, so it existed: no listing of every topic first (thousands of
    // topics make that the slowest call here); only if that fails, the checked way.
    const ranges = await this.#admin
      .existingTopicOffsets(this.#topic)
      .catch(() => this.#admin.topicOffsets(this.#topic));
    if (ranges === null) return { retention: null, groups };
    if (retention.retentionMs === null && retention.retentionBytes === null) {
      // No limit: nothing to read per subscriber.
      for (const g of groupIds)
        groups.set(
          g,
          ranges.map((r) => ({
            partition: r.partition,
            committed: null,
            recordTimestampMs: null,
            headroom: { kind: 'unbounded' },
          })),
        );
      return { retention, groups };
    }
    const hourAgo =
      retention.retentionBytes === null
        ? null
        : new Map(
            (await this.#admin.offsetsAt(this.#topic, nowMs - HOUR_MS)).map((o) => [
              o.partition,
              Number(o.offset),
            ]),
          );
    const ledgers = new Map<string, Map<number, number>>();
    for (const [g, committed] of await this.#ledgers(groupIds))
      ledgers.set(
        g,
        new Map(
          committed.flatMap((c) => (c.offset === null ? [] : [[c.partition, Number(c.offset)] as const])),
        ),
      );
    // The records to read: each ledger with something owed, and (for a size rate) the last record
    // of a partition whose ledger is at its end.
    const wanted = new Map<string, { partition: number; offset: number }>();
    for (const ledger of ledgers.values())
      for (const r of ranges) {
        const at = ledger.get(r.partition);
        if (at === undefined) continue;
        const end = Number(r.high);
        const offset =
          at < end
            ? Math.max(at, Number(r.low))
            : retention.retentionBytes !== null && end > Number(r.low)
              ? end - 1
              : null;
        if (offset !== null && !this.#samples.has(sampleKey(r.partition, offset)))
          wanted.set(sampleKey(r.partition, offset), { partition: r.partition, offset });
      }
    await this.#sample([...wanted.values()]);
    for (const [g, ledger] of ledgers)
      groups.set(
        g,
        ranges.map((r) => {
          const at = ledger.get(r.partition);
          if (at === undefined)
            return { partition: r.partition, committed: null, recordTimestampMs: null, headroom: null };
          const end = Number(r.high);
          const low = Number(r.low);
          if (at < low)
            // Retention already passed the ledger: the gap is found at the subscriber's next join.
            return {
              partition: r.partition,
              committed: at,
              recordTimestampMs: null,
              headroom: { kind: 'bounded', seconds: 0, basis: 'time' },
            };
          const sample =
            at < end
              ? this.#samples.get(sampleKey(r.partition, at))
              : this.#samples.get(sampleKey(r.partition, end - 1));
          const figures: PartitionFigures = {
            committed: at,
            end,
            recordTimestampMs: at < end ? (sample?.timestampMs ?? null) : null,
            bytesPerRecord: sample?.bytesPerRecord ?? null,
            recordsLastHour: hourAgo === null ? null : Math.max(0, end - (hourAgo.get(r.partition) ?? end)),
          };
          return {
            partition: r.partition,
            committed: at,
            recordTimestampMs: figures.recordTimestampMs,
            // Owed, but its record could not be read: not measured, rather than a whole retention.
            headroom:
              at < end && retention.retentionMs !== null && figures.recordTimestampMs === null
                ? null
                : retentionHeadroom(retention, figures, nowMs),
          };
        }),
      );
    return { retention, groups };
  }

  /** The groups' ledgers in one batch; if that fails, each group on its own (a failed one stays out). */
  async #ledgers(groupIds: readonly string[]): Promise<ReadonlyMap<string, readonly CommittedOffset[]>> {
    try {
      return await this.#admin.committedOffsetsOfGroups(groupIds, this.#topic);
    } catch {
      const out = new Map<string, readonly CommittedOffset[]>();
      await forEachLimited(groupIds, this.#concurrency, async (g) => {
        try {
          out.set(g, await this.#admin.committedOffsets(g, this.#topic));
        } catch {
          // This group stays unmeasured; the others are not held up by it.
        }
      });
      return out;
    }
  }

  async #retention(nowMs: number): Promise<TopicRetention | null> {
    if (this.#config !== null && nowMs - this.#config.atMs < this.#configTtlMs) return this.#config.retention;
    const config = await this.#admin.topicConfig(this.#topic);
    const retention = config === null ? null : topicRetention(config);
    this.#config = { atMs: nowMs, retention };
    return retention;
  }

  /** Reads the wanted records, each partition once per Fetch, and remembers them. */
  async #sample(wanted: readonly { partition: number; offset: number }[]): Promise<void> {
    let rest = wanted;
    while (rest.length > 0) {
      const seen = new Set<number>();
      const now: { partition: number; offset: number }[] = [];
      const later: { partition: number; offset: number }[] = [];
      for (const w of rest) {
        (seen.has(w.partition) ? later : now).push(w);
        seen.add(w.partition);
      }
      for (const s of await this.#admin.recordSamples(this.#topic, now)) {
        // A position with nothing there yet is not remembered: a record may arrive.
        if (s.timestampMs === null) continue;
        const key = sampleKey(s.partition, s.offset);
        this.#samples.delete(key);
        this.#samples.set(key, s);
        if (this.#samples.size > this.#cacheSize) {
          const oldest = this.#samples.keys().next().value;
          if (oldest !== undefined) this.#samples.delete(oldest);
        }
      }
      rest = later;
    }
  }
}

function sampleKey(partition: number, offset: number): string {
  return `${partition}:${offset}`;
}
