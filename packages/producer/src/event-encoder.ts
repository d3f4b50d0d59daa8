import type { EventSchema, RegistrySettings } from '@hookstream/contracts';
import { loadEventCatalog } from '@hookstream/contracts';
import type { OutgoingRecord } from '@hookstream/kafka';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { type AvroWriter, avroWriters, encodeWire } from './avro-wire.ts';
import { cloudEventHeaders } from './cloud-event-headers.ts';
import { PublishError } from './errors.ts';
import { prepareEvent } from './prepare-event.ts';
import { RegistryHttp } from './registry-http.ts';
import { registerSchemas } from './schema-ids.ts';
import { newTraceparent } from './traceparent.ts';

/** An event to encode: the producer's request fields, with its id, time and tenant fixed. */
export interface EncodeRequest {
  readonly id: string;
  readonly type: string;
  readonly tenant: string | undefined;
  /** RFC 3339. */
  readonly time: string;
  /** The `ce_source`. */
  readonly source: string;
  readonly data: unknown;
}

/**
 * The producer's encoding without its write, for a record that goes elsewhere than the events
 * topic (the portal's example, onto one subscriber's retry tier): checked as a publish is
 * (prepareEvent), Avro in the registry's wire format with the same writers, CloudEvents headers.
 */
export class EventEncoder {
  readonly #catalog: ReadonlyMap<string, EventSchema>;
  readonly #registry: SchemaRegistry;
  readonly #http: RegistryHttp;
  readonly #schemaIds: Map<string, number>;
  readonly #writers: Map<number, AvroWriter>;

  private constructor(parts: {
    catalog: ReadonlyMap<string, EventSchema>;
    registry: SchemaRegistry;
    http: RegistryHttp;
    schemaIds: Map<string, number>;
    writers: Map<number, AvroWriter>;
  }) {
    this.#catalog = parts.catalog;
    this.#registry = parts.registry;
    this.#http = parts.http;
    this.#schemaIds = parts.schemaIds;
    this.#writers = parts.writers;
  }

  /** Registers the schemas, as a producer's start does (idempotent), and fetches their writers. */
  static async start(options: {
    readonly registry: RegistrySettings;
    readonly catalog?: ReadonlyMap<string, EventSchema>;
    readonly subjectPrefix?: string;
  }): Promise<EventEncoder> {
    const catalog = options.catalog ?? loadEventCatalog();
    const http = new RegistryHttp(options.registry);
    const registry = new SchemaRegistry({
      host: http.url,
      retry: { retries: 1 },
      agent: http.agent,
      ...(http.auth === null ? {} : { auth: http.auth }),
    });
    try {
      const schemaIds = await registerSchemas(registry, catalog, options.subjectPrefix);
      const writers = await avroWriters(registry, schemaIds);
      return new EventEncoder({ catalog, registry, http, schemaIds, writers });
    } catch (err) {
      http.close();
      throw err;
    }
  }

  /** The record a producer would write for this event; PublishError when the data does not fit. */
  async encode(request: EncodeRequest): Promise<OutgoingRecord & { key: string; value: Buffer }> {
    const input = {
      id: request.id,
      type: request.type,
      data: request.data,
      occurred_at: request.time,
      ...(request.tenant === undefined ? {} : { tenant: request.tenant }),
    };
    const event = prepareEvent(this.#catalog, input, () => new Date(Date.parse(request.time)));
    const id = this.#schemaIds.get(event.type);
    if (id === undefined) throw new PublishError('UNKNOWN_TYPE', `no registered schema for ${event.type}`);
    const writer = this.#writers.get(id);
    let value: Buffer;
    try {
      value =
        writer === undefined
          ? await this.#registry.encode(id, event.data)
          : encodeWire(writer, id, event.data);
    } catch (err) {
      throw new PublishError('INVALID_DATA', `data does not encode as ${event.type}: ${String(err)}`, {
        cause: err,
      });
    }
    return { key: event.key, value, headers: cloudEventHeaders(event, request.source, newTraceparent()) };
  }

  close(): void {
    this.#http.close();
  }
}
