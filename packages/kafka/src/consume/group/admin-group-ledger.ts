import type { KafkaAdmin } from '../../admin/kafka-admin.ts';
import { explained } from '../../connection/access-refusal.ts';
import type { KafkaConnection } from '../../connection/kafka-connection.ts';
import { accessOf, kafkaOf } from '../../connection/raw-client.ts';
import type { GroupLedger, PartitionReading } from './group-ledger.ts';
import { prepareStart, type StartedFrom, type StartFrom } from './start-position.ts';

export interface AdminGroupLedgerOptions {
  readonly kafka: KafkaConnection;
  readonly groupId: string;
  /** The events topic, positioned for a brand-new group. */
  readonly topic: string;
  readonly start: StartFrom;
  /** Extra topics a brand-new group begins at `start` too (a subscriber's notices topic). */
  readonly positionedTopics: readonly string[];
  /** A connected admin shared by the process; else each read connects one of its own. */
  readonly admin?: KafkaAdmin | undefined;
}

/** The group's ledger through Kafka's admin API: reading it never joins the group. */
export class AdminGroupLedger implements GroupLedger {
  readonly #options: AdminGroupLedgerOptions;

  constructor(options: AdminGroupLedgerOptions) {
    this.#options = options;
  }

  async prepare(): Promise<StartedFrom> {
    const { kafka, groupId, topic, start, positionedTopics } = this.#options;
    const admin = kafkaOf(kafka).admin();
    await explained(() => admin.connect(), accessOf(kafka, 'connect'));
    try {
      return await prepareStart(kafkaOf(kafka), admin, groupId, topic, start, positionedTopics);
    } finally {
      await admin.disconnect();
    }
  }

  async read(topics: readonly string[]): Promise<ReadonlyMap<string, readonly PartitionReading[]>> {
    const { groupId, kafka } = this.#options;
    const admin = this.#options.admin ?? kafka.admin();
    const own = admin === this.#options.admin ? null : admin;
    try {
      if (own) await own.connect();
      const ledger = await admin.groupLedger(groupId, topics);
      const read = topics.map((topic) => {
        const { committed, ranges } = ledger.get(topic) ?? { committed: [], ranges: [] };
        const byPartition = new Map<number, Omit<PartitionReading, 'partition'>>();
        for (const r of ranges)
          byPartition.set(r.partition, {
            committed: null,
            logStart: Number(r.low),
            logEnd: Number(r.high),
          });
        for (const c of committed)
          if (c.offset !== null) {
            const range = byPartition.get(c.partition);
            byPartition.set(c.partition, {
              committed: Number(c.offset),
              logStart: range?.logStart ?? null,
              logEnd: range?.logEnd ?? null,
              committedAtMs: c.committedAtMs ?? null,
              openSinceMs: c.openSinceMs ?? null,
              rewind: c.rewind ?? null,
            });
          }
        const readings = [...byPartition].map(([partition, r]) => ({ partition, ...r }));
        return [topic, readings] as const;
      });
      return new Map(read);
    } finally {
      await own?.disconnect().catch(() => undefined);
    }
  }
}
