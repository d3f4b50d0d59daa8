import { randomBytes } from 'node:crypto';
import {
  AVRO_CONTENT_TYPE,
  CE_HEADER,
  CE_SPECVERSION,
  CONTENT_TYPE_HEADER,
  TRACEPARENT_HEADER,
} from '@hookstream/contracts';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { uniqueName } from './names.ts';
import { endpoints } from './stack.ts';

export interface TestEvent {
  readonly id: string;
  readonly type: string;
  readonly key: string;
  readonly data: { readonly n: number; readonly note: string };
  readonly occurredAt: string;
  readonly traceparent: string;
}

export interface KafkaTestMessage {
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

/**
 * Produces records exactly as the ingress does (Avro in the registry's wire format, CloudEvents
 * headers), with a schema registered under a subject of this run only.
 */
export class EventFactory {
  readonly #registry = new SchemaRegistry({ host: endpoints.registry });
  #schemaId: number | null = null;
  #seq = 0;

  async init(): Promise<this> {
    const schema = {
      type: 'record',
      name: 'TestEvent',
      namespace: 'hookstream.test',
      fields: [
        { name: 'n', type: 'int' },
        { name: 'note', type: 'string' },
      ],
    };
    const { id } = await this.#registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(schema) },
      { subject: uniqueName('hookstream-test-value') },
    );
    this.#schemaId = id;
    return this;
  }

  event(type = 'shipment.updated', key?: string): TestEvent {
    const n = this.#seq++;
    return {
      id: `evt-${randomBytes(6).toString('hex')}-${n}`,
      type,
      key: key ?? `ship-${n % 7}`,
      data: { n, note: `event ${n}` },
      occurredAt: new Date().toISOString(),
      traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
    };
  }

  async message(e: TestEvent): Promise<KafkaTestMessage> {
    if (this.#schemaId === null) throw new Error('EventFactory.init() first');
    return {
      key: e.key,
      value: await this.#registry.encode(this.#schemaId, e.data),
      headers: {
        [CE_HEADER.id]: e.id,
        [CE_HEADER.type]: e.type,
        [CE_HEADER.source]: '/test',
        [CE_HEADER.time]: e.occurredAt,
        [CE_HEADER.specversion]: CE_SPECVERSION,
        [CONTENT_TYPE_HEADER]: AVRO_CONTENT_TYPE,
        [TRACEPARENT_HEADER]: e.traceparent,
      },
    };
  }
}

export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
