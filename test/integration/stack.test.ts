import { createKafka, createRawConsumer, createRawProducer } from '@hookstream/kafka';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { TRACING_BACKEND_WAIT_MS, tracingBackend } from '../support/tracing-backend.ts';
import { waitFor } from '../support/wait.ts';

// Reads traces: waits for Jaeger, which may still be building on a fresh machine.
beforeAll(tracingBackend, TRACING_BACKEND_WAIT_MS);

// These prove the local stack is made of the real servers: each test talks to one of them
// over its real protocol and reads back what it wrote.

describe('local stack', () => {
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: 'stack-test', quiet: true });
  const admin = kafka.admin();
  afterAll(() => admin.disconnect());

  it('Kafka stores a record with acks=all and hands it to a new consumer group', async () => {
    const topic = uniqueName('stack-test');
    await admin.connect();
    expect(await admin.ensureTopics([{ topic, partitions: 3, replicationFactor: 1 }])).toEqual([topic]);

    const producer = createRawProducer(kafka);
    await producer.connect();
    const [meta] = await producer.send({
      topic,
      acks: -1,
      messages: [{ key: 'shipment-1', value: 'hello', headers: { ce_id: 'evt-1' } }],
    });
    await producer.disconnect();
    expect(meta?.baseOffset).toBe('0');

    const consumer = createRawConsumer(kafka, {
      groupId: uniqueName('stack-test-group'),
      maxWaitTimeInMs: 100,
    });
    await consumer.connect();
    await consumer.subscribe([topic], { fromBeginning: true });
    const received: { key: string; value: string; header: string; partition: number }[] = [];
    await consumer.run(async ({ key, value, headers, partition }) => {
      received.push({
        key: key ?? '',
        value: value?.toString() ?? '',
        header: headers.ce_id ?? '',
        partition,
      });
    });
    try {
      await waitFor('the record to be consumed', async () => (received.length > 0 ? true : undefined));
    } finally {
      await consumer.disconnect();
    }
    expect(received).toEqual([
      { key: 'shipment-1', value: 'hello', header: 'evt-1', partition: meta?.partition },
    ]);
  });

  it('the registry registers an Avro schema, round-trips a value and refuses an incompatible change', async () => {
    const registry = new SchemaRegistry({ host: endpoints.registry });
    const subject = uniqueName('stack-test-value');
    const v1 = {
      type: 'record',
      name: 'ShipmentUpdated',
      namespace: 'dev.hookstream.test',
      fields: [
        { name: 'id', type: 'string' },
        { name: 'status', type: 'string' },
      ],
    };
    const { id } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(v1) },
      { subject },
    );

    const encoded = await registry.encode(id, { id: 'shp_1', status: 'in_transit' });
    // Confluent wire format: magic byte 0, then the schema id as a 4-byte big-endian int.
    expect(encoded[0]).toBe(0);
    expect(encoded.readInt32BE(1)).toBe(id);
    expect(await registry.decode(encoded)).toEqual({ id: 'shp_1', status: 'in_transit' });

    // A new required field without a default cannot read old data: BACKWARD refuses it.
    const incompatible = { ...v1, fields: [...v1.fields, { name: 'carrier', type: 'string' }] };
    await expect(
      registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(incompatible) }, { subject }),
    ).rejects.toThrow(/incompatible/i);
  });

  it('Jaeger accepts a span over OTLP/HTTP and serves it from its query API', async () => {
    const service = uniqueName('stack-test-svc');
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': service }),
      spanProcessors: [
        new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: endpoints.otlpTraces }) }),
      ],
    });
    const span = provider.getTracer('stack-test').startSpan('publish events', {
      attributes: { 'messaging.system': 'kafka', 'messaging.message.id': 'evt-42' },
    });
    const traceId = span.spanContext().traceId;
    span.end();
    await provider.forceFlush();
    await provider.shutdown();

    interface JaegerTraces {
      data: {
        traceID: string;
        spans: { operationName: string; tags: { key: string; value: unknown }[] }[];
      }[];
    }
    const trace = await waitFor('the span to be queryable in Jaeger', async () => {
      const res = await fetch(`${endpoints.jaegerQuery}/api/traces?service=${service}`);
      const body = (await res.json()) as JaegerTraces;
      return body.data?.find((t) => t.traceID === traceId);
    });
    expect(trace.spans).toHaveLength(1);
    expect(trace.spans[0]?.operationName).toBe('publish events');
    expect(trace.spans[0]?.tags).toContainEqual({
      key: 'messaging.message.id',
      type: 'string',
      value: 'evt-42',
    });
  });
});
