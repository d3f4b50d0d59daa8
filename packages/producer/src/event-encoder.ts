import type { EventSchema, RegistrySettings } from '@hookstream/contracts';
import type { OutgoingRecord } from '@hookstream/kafka';
import { encodeWire } from './avro-wire.ts';
import { cloudEventHeaders } from './cloud-event-headers.ts';
import { PublishError } from './errors.ts';
import { type EventSchemas, openEventSchemas } from './event-schemas.ts';
import { prepareEvent } from './prepare-event.ts';
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
  readonly #schemas: EventSchemas;

  private constructor(schemas: EventSchemas) {
    this.#schemas = schemas;
  }

  /** Registers the schemas, as a producer's start does (idempotent), and fetches their writers. */
  static async start(options: {
    readonly registry: RegistrySettings;
    readonly catalog?: ReadonlyMap<string, EventSchema>;
    readonly subjectPrefix?: string;
  }): Promise<EventEncoder> {
    return new EventEncoder(await openEventSchemas(options));
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
    const { catalog, registry, schemaIds, writers } = this.#schemas;
    const event = prepareEvent(catalog, input, () => new Date(Date.parse(request.time)));
    const id = schemaIds.get(event.type);
    if (id === undefined) throw new PublishError('UNKNOWN_TYPE', `no registered schema for ${event.type}`);
    const writer = writers.get(id);
    let value: Buffer;
    try {
      value =
        writer === undefined ? await registry.encode(id, event.data) : encodeWire(writer, id, event.data);
    } catch (err) {
      throw new PublishError('INVALID_DATA', `data does not encode as ${event.type}: ${String(err)}`, {
        cause: err,
      });
    }
    return { key: event.key, value, headers: cloudEventHeaders(event, request.source, newTraceparent()) };
  }

  close(): void {
    this.#schemas.registryHttp.close();
  }
}
