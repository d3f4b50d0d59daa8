import {
  AVRO_CONTENT_TYPE,
  CE_HEADER,
  CE_SPECVERSION,
  CONTENT_TYPE_HEADER,
  type RegistrySettings,
} from '@hookstream/contracts';
import type { OutgoingRecord } from '@hookstream/kafka';
import { RegistryHttp } from '@hookstream/producer';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';

/** A small record schema of the benchmarks' own, so they need no event catalog. */
const BENCH_EVENT_SCHEMA = {
  type: 'record',
  name: 'BenchEvent',
  namespace: 'hookstream.bench',
  fields: [
    { name: 'shipment_id', type: 'string' },
    { name: 'status', type: 'string' },
    { name: 'n', type: 'int' },
  ],
};

/** The same with a `payload` string: events of a chosen size (the https row's 16 KiB). */
const PADDED_BENCH_EVENT_SCHEMA = {
  ...BENCH_EVENT_SCHEMA,
  name: 'PaddedBenchEvent',
  fields: [...BENCH_EVENT_SCHEMA.fields, { name: 'payload', type: 'string' }],
};

/** What varies between benchmark events. */
export interface BenchEvent {
  readonly id: string;
  readonly type: string;
  /** The partition key, also the event's shipment_id. */
  readonly key: string;
  readonly n: number;
  /** CloudEvents time (RFC 3339): occurred_at, which a subscriber's max age counts from. */
  readonly time: string;
  /** Whose event it is (`ce_tenant`, as the producer writes it); none when absent. */
  readonly tenant?: string;
}

/**
 * Benchmark events as the ingress writes events: Avro in the registry's wire format under the
 * topic's `<topic>-value` subject, with CloudEvents headers, ready for a raw write to Kafka.
 */
export class BenchEventCodec {
  readonly #registry: SchemaRegistry;
  readonly #schemaId: number;
  readonly #payload: string | undefined;

  private constructor(registry: SchemaRegistry, schemaId: number, payload: string | undefined) {
    this.#registry = registry;
    this.#schemaId = schemaId;
    this.#payload = payload;
  }

  /**
   * Registers the schema for the topic (idempotent) and returns a codec that encodes with it.
   * `payloadBytes` > 0: every event also carries a `payload` of that many ASCII characters.
   */
  static async forTopic(
    settings: RegistrySettings,
    topic: string,
    payloadBytes = 0,
  ): Promise<BenchEventCodec> {
    // The registry client as the producer makes it: credentials and a private CA included.
    const http = new RegistryHttp(settings);
    const registry = new SchemaRegistry({
      host: http.url,
      agent: http.agent,
      ...(http.auth === null ? {} : { auth: http.auth }),
    });
    const { id } = await registry.register(
      {
        type: SchemaType.AVRO,
        schema: JSON.stringify(payloadBytes > 0 ? PADDED_BENCH_EVENT_SCHEMA : BENCH_EVENT_SCHEMA),
      },
      { subject: `${topic}-value` },
    );
    return new BenchEventCodec(registry, id, payloadBytes > 0 ? benchPayload(payloadBytes) : undefined);
  }

  async record(event: BenchEvent): Promise<OutgoingRecord> {
    const headers: Record<string, string> = {
      [CE_HEADER.id]: event.id,
      [CE_HEADER.type]: event.type,
      [CE_HEADER.source]: '/bench',
      [CE_HEADER.time]: event.time,
      [CE_HEADER.specversion]: CE_SPECVERSION,
      [CONTENT_TYPE_HEADER]: AVRO_CONTENT_TYPE,
    };
    // Only on an event that has one, as the producer does (cloudEventHeaders).
    if (event.tenant !== undefined) headers[CE_HEADER.tenant] = event.tenant;
    return {
      key: event.key,
      value: await this.#registry.encode(this.#schemaId, {
        shipment_id: event.key,
        status: 'in_transit',
        n: event.n,
        ...(this.#payload === undefined ? {} : { payload: this.#payload }),
      }),
      headers,
    };
  }
}

/** A payload of `bytes` ASCII characters (one byte each in Avro and in JSON). */
export function benchPayload(bytes: number): string {
  return 'p'.repeat(bytes);
}
