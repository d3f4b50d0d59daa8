import { CE_HEADER, loadEventCatalog } from '@hookstream/contracts';
import { EventProducer, PublishError, registerSchemas } from '@hookstream/producer';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';
import { createTopic, endOffsetTotal, readRecords } from '../support/topic.ts';

describe('EventProducer against the real Kafka and registry', () => {
  const topic = uniqueName('producer-test');
  const registry = new SchemaRegistry({ host: endpoints.registry });
  let producer: EventProducer;

  beforeAll(async () => {
    await createTopic(topic, 3);
    producer = await EventProducer.start({
      kafka: endpoints.kafka,
      registry: endpoints.registrySettings,
      source: '/tests/producer',
      topic,
    });
  });
  afterAll(() => producer.close());

  it('writes typed events readable through the registry, with CloudEvents headers and the right key', async () => {
    const shipped = await producer.publish(
      'shipment.updated',
      { shipment: { id: 'shp-1', status: 'delivered', carrier: 'dhl' } },
      { key: 'shp-1', occurredAt: '2026-11-30T10:00:00Z' },
    );
    const revoked = await producer.publish(
      'key.revoked',
      { tenant_id: 't1', key_id: 'k1' },
      { id: 'evt-fixed-1' },
    );
    expect(revoked.eventId).toBe('evt-fixed-1');

    const records = await readRecords(topic, 2);
    const byId = new Map(records.map((r) => [r.headers[CE_HEADER.id], r]));
    const first = byId.get(shipped.eventId);
    expect(first?.key).toBe('shp-1');
    expect([first?.partition, first?.offset]).toEqual([shipped.partition, shipped.offset]);
    expect(await registry.decode(first?.value as Buffer)).toEqual({
      shipment: { id: 'shp-1', status: 'delivered', carrier: 'dhl', tracking_number: null, updated_at: null },
    });
    expect(first?.headers).toMatchObject({
      ce_type: 'shipment.updated',
      ce_source: '/tests/producer',
      ce_time: '2026-11-30T10:00:00Z',
      ce_specversion: '1.0',
      'content-type': 'application/avro',
    });
    expect(first?.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const second = byId.get('evt-fixed-1');
    expect(second?.key).toBe('evt-fixed-1'); // no key given: the event id
    expect(await registry.decode(second?.value as Buffer)).toEqual({ tenant_id: 't1', key_id: 'k1' });
  });

  it('writes the tenant given as ce_tenant, and none when none is given', async () => {
    const owned = await producer.publish('key.revoked', { tenant_id: 't', key_id: 'k' }, { tenant: 'acme' });
    const unowned = await producer.publish('key.revoked', { tenant_id: 't', key_id: 'k' });
    await expect(
      producer.publish('key.revoked', { tenant_id: 't', key_id: 'k' }, { tenant: 'acme corp' }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const records = await readRecords(topic, await endOffsetTotal(topic));
    const byId = new Map(records.map((r) => [r.headers[CE_HEADER.id], r]));
    expect(byId.get(owned.eventId)?.headers[CE_HEADER.tenant]).toBe('acme');
    expect(byId.get(unowned.eventId)?.headers).not.toHaveProperty(CE_HEADER.tenant);
  });

  it('micro-batches concurrent publishes and still tells each caller its own offset', async () => {
    const before = await endOffsetTotal(topic);
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        producer.publish('key.revoked', { tenant_id: `t${i}`, key_id: `k${i}` }, { key: `t${i % 10}` }),
      ),
    );
    expect(await endOffsetTotal(topic)).toBe(before + 300);
    const records = await readRecords(topic, before + 300);
    const at = new Map(records.map((r) => [`${r.partition}/${r.offset}`, r]));
    for (const r of results)
      expect(at.get(`${r.partition}/${r.offset}`)?.headers[CE_HEADER.id]).toBe(r.eventId);
  });

  it('writes a duplicate id once and answers it with the first result', async () => {
    const before = await endOffsetTotal(topic);
    const data = { tenant_id: 't', key_id: 'k' };
    const [a, b] = await Promise.all([
      producer.publish('key.revoked', data, { id: 'dup-1' }),
      producer.publish('key.revoked', data, { id: 'dup-1' }),
    ]);
    const c = await producer.publish('key.revoked', data, { id: 'dup-1' });
    expect([a?.duplicate, b?.duplicate, c.duplicate]).toEqual([false, true, true]);
    expect(new Set([a, b, c].map((r) => `${r?.partition}/${r?.offset}`)).size).toBe(1);
    expect(await endOffsetTotal(topic)).toBe(before + 1);
  });

  it('rejects invalid data before writing anything', async () => {
    const before = await endOffsetTotal(topic);
    const bad = { shipment: { id: 's' } } as unknown as { shipment: { id: string; status: string } };
    await expect(producer.publish('shipment.updated', bad)).rejects.toMatchObject({
      code: 'INVALID_DATA',
      canRetry: false,
    });
    expect(await endOffsetTotal(topic)).toBe(before);
  });
});

describe('schema registration', () => {
  const registry = new SchemaRegistry({ host: endpoints.registry });
  const catalog = loadEventCatalog();
  const shipment = catalog.get('shipment.updated');
  if (!shipment) throw new Error('shipment.updated schema missing');

  it('accepts a compatible change and refuses an incompatible one', async () => {
    const prefix = `${uniqueName('compat')}.`;
    const v1 = await registerSchemas(registry, new Map([[shipment.type, shipment]]), prefix);
    // Registering the same schema again is a no-op with the same id.
    expect(await registerSchemas(registry, new Map([[shipment.type, shipment]]), prefix)).toEqual(v1);

    const fields = shipment.avro.fields as unknown[];
    const compatible = {
      ...shipment,
      avro: {
        ...shipment.avro,
        fields: [...fields, { name: 'note', type: ['null', 'string'], default: null }],
      },
    };
    await registerSchemas(registry, new Map([[shipment.type, compatible]]), prefix);

    // A new required field without default: readers of the new schema cannot read old data.
    const incompatible = {
      ...shipment,
      avro: { ...shipment.avro, fields: [...fields, { name: 'priority', type: 'int' }] },
    };
    const refused = await registerSchemas(registry, new Map([[shipment.type, incompatible]]), prefix).catch(
      (e) => e,
    );
    expect(refused).toBeInstanceOf(PublishError);
    expect(refused).toMatchObject({ code: 'SCHEMA_REJECTED', canRetry: false });
  });
});
