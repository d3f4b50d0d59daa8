import { describe, expect, it } from 'vitest';
import { loadEventCatalog } from '../src/event-catalog.ts';
import { componentAcls } from '../src/kafka-acls.ts';
import {
  isNoticeType,
  NOTICE_SCHEMA_NAMESPACE,
  NOTICE_TYPES,
  noticesTopicName,
  takesNotices,
} from '../src/notices.ts';

describe('notices', () => {
  it('reserves exactly the types whose schema is in the hookstream.ops namespace', () => {
    const ops = [...loadEventCatalog().values()]
      .filter((s) => s.avro.namespace === NOTICE_SCHEMA_NAMESPACE)
      .map((s) => s.type);
    expect([...NOTICE_TYPES].sort()).toEqual(ops.sort());
    expect(isNoticeType('subscriber.disabled')).toBe(true);
    expect(isNoticeType('shipment.updated')).toBe(false);
  });

  it.each([
    [['*'], true],
    [['subscriber.disabled'], true],
    [['shipment.updated', 'subscriber.enabled'], true],
    [['shipment.updated'], false],
  ] as const)('%j takes notices: %s', (eventTypes, expected) => {
    expect(takesNotices({ eventTypes: [...eventTypes] })).toBe(expected);
  });

  it("a tenant's subscriber takes notices as any other (its tenant filter keeps its tenant's)", () => {
    const all = { eventTypes: ['*' as const], tenant: 'acme' };
    const disabled = { eventTypes: ['subscriber.disabled' as const], tenant: 'acme' };
    const shipments = { eventTypes: ['shipment.updated' as const], tenant: 'acme' };
    expect(takesNotices(all)).toBe(true);
    expect(takesNotices(disabled)).toBe(true);
    expect(takesNotices(shipments)).toBe(false);
  });

  it('gives the pusher, and the ingress not, the events topic notices topic', () => {
    const topic = noticesTopicName('events');
    expect(topic).toBe('hookstream.notices.events');
    const pusher = componentAcls({ role: 'pusher', eventsTopic: 'events' }).find((g) => g.name === topic);
    expect(pusher).toEqual({
      resource: 'topic',
      pattern: 'literal',
      name: topic,
      operations: ['READ', 'WRITE', 'CREATE', 'DESCRIBE'],
    });
    expect(componentAcls({ role: 'ingress', eventsTopic: 'events' }).some((g) => g.name === topic)).toBe(
      false,
    );
  });
});
