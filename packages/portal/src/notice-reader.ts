import { CE_HEADER, noticesTopicName } from '@hookstream/contracts';
import { type KafkaConnection, KafkaReadError, readTopic } from '@hookstream/kafka';
import type { NoticeView } from './portal-backend.ts';

/** Decodes a notice's value (the pusher's Avro decoder); anything else shows its headers only. */
export interface NoticeDecoder {
  decode(
    value: Buffer | null,
    type: string,
  ): Promise<
    { readonly kind: 'ok'; readonly data: Readonly<Record<string, unknown>> } | { readonly kind: string }
  >;
}

/** How far back the notices page reads, per partition of the notices topic. */
const RECENT_PER_PARTITION = 2000;
/** A page read again within this long answers from the last read. */
const FRESH_MS = 5000;

/**
 * A tenant's recent operational notices from the notices topic: the newest records of each
 * partition, only those carrying the tenant as `ce_tenant` (a notice about a tenant's subscriber
 * always does), decoded. Read on demand: the page is opened rarely, the topic is small.
 */
export class KafkaNoticeReader {
  readonly #kafka: KafkaConnection;
  readonly #topic: string;
  readonly #decoder: NoticeDecoder;
  readonly #recent = new Map<string, { readonly atMs: number; readonly notices: readonly NoticeView[] }>();

  constructor(kafka: KafkaConnection, eventsTopic: string, decoder: NoticeDecoder) {
    this.#kafka = kafka;
    this.#topic = noticesTopicName(eventsTopic);
    this.#decoder = decoder;
  }

  async read(tenant: string, limit: number): Promise<readonly NoticeView[]> {
    const last = this.#recent.get(tenant);
    if (last !== undefined && Date.now() - last.atMs < FRESH_MS) return last.notices.slice(0, limit);
    let records: Awaited<ReturnType<typeof readTopic>> = [];
    try {
      records = await readTopic(this.#kafka, {
        topic: this.#topic,
        purpose: 'portal-notices',
        lastPerPartition: RECENT_PER_PARTITION,
        keep: (r) => r.headers[CE_HEADER.tenant] === tenant,
        timeoutMs: 15_000,
      });
    } catch (err) {
      // No notice was ever published: no topic yet.
      if (!(err instanceof KafkaReadError && err.code === 'NO_SUCH_TOPIC')) throw err;
    }
    const notices: NoticeView[] = [];
    for (const r of records) {
      const type = r.headers[CE_HEADER.type] ?? 'unknown';
      const decoded = await this.#decoder.decode(r.value, type);
      notices.push({
        id: r.headers[CE_HEADER.id] ?? `${r.partition}:${r.offset}`,
        type,
        time: r.headers[CE_HEADER.time] ?? new Date(r.timestampMs).toISOString(),
        subscriber: r.key,
        data: 'data' in decoded ? decoded.data : {},
      });
    }
    notices.sort((a, b) => b.time.localeCompare(a.time));
    // Bounded: tenants are many, a page's answer is small.
    if (this.#recent.size >= 1000) this.#recent.clear();
    this.#recent.set(tenant, { atMs: Date.now(), notices });
    return notices.slice(0, limit);
  }
}
