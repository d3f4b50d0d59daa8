import { describe, expect, it } from 'vitest';
import { type Caller, ManagementError, ManagementService, type MessageDetail } from '../src/index.ts';
import { fakePorts, record, storedEvent } from './fake-ports.ts';

const operator: Caller = { scope: { kind: 'operator' }, id: 'tok-op' };
const acme: Caller = { scope: { kind: 'tenant', tenant: 'acme' }, id: 'tok-acme' };

async function failure(work: Promise<unknown>): Promise<ManagementError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManagementError);
  return err as ManagementError;
}

function message(eventId: string, tenant: string): MessageDetail {
  const at = '2026-02-01T00:00:00.000Z';
  return {
    eventId,
    type: 'order.created',
    tenant,
    firstAt: at,
    lastAt: at,
    state: 'delivered',
    endpoints: [{ subscriber: 'a-acme', step: 'delivered', attempts: 1, lastStatus: 200, lastAt: at }],
    attempts: [{ subscriber: 'a-acme', attempt: 1, step: 'delivered', at, status: 200, durationMs: 12 }],
  };
}

function setup() {
  const fake = fakePorts([
    record('a-acme', 'acme'),
    record('a2-acme', 'acme'),
    record('b-globex', 'globex'),
    record('c-none'),
  ]);
  fake.index.messages.push(message('m-acme', 'acme'), message('m-globex', 'globex'));
  return { ...fake, service: new ManagementService(fake.ports) };
}

describe('listMessages', () => {
  it("forces a tenant's own tenant and asks only for its own endpoints' steps (never the operator's subscriber of no tenant)", async () => {
    const { service, index } = setup();
    const page = await service.listMessages(acme, { limit: 50, state: 'delivered' });
    expect(page.items.map((m) => m.eventId)).toEqual(['m-acme']);
    expect(index.lists).toEqual([
      { tenant: 'acme', subscribers: ['a-acme', 'a2-acme'], state: 'delivered', limit: 50 },
    ]);
  });

  it("narrows to the named endpoints it holds; another tenant's name matches none, and nothing is asked", async () => {
    const { service, index } = setup();
    await service.listMessages(acme, { limit: 10, subscribers: ['a2-acme', 'b-globex'] });
    expect(index.lists[0]?.subscribers).toEqual(['a2-acme']);
    expect(await service.listMessages(acme, { limit: 10, subscribers: ['b-globex'] })).toEqual({
      items: [],
      nextCursor: null,
    });
    expect(index.lists).toHaveLength(1);
  });

  it('refuses a tenant naming another tenant (403 forbidden_tenant); the operator must name one (400)', async () => {
    const { service, index } = setup();
    const other = await failure(service.listMessages(acme, { limit: 10, tenant: 'globex' }));
    expect([other.code, other.status]).toEqual(['forbidden_tenant', 403]);
    expect((await failure(service.listMessages(operator, { limit: 10 }))).code).toBe('invalid_request');
    expect(index.lists).toEqual([]);
    await service.listMessages(operator, { limit: 10, tenant: 'globex', types: ['order.created'] });
    expect(index.lists).toEqual([{ tenant: 'globex', types: ['order.created'], limit: 10 }]);
  });

  it('answers 503 messages_unavailable without an index', async () => {
    const { ports } = fakePorts([]);
    const { messages: _none, ...bare } = ports;
    const err = await failure(new ManagementService(bare).listMessages(acme, { limit: 10 }));
    expect([err.code, err.status]).toEqual(['messages_unavailable', 503]);
  });
});

describe('getMessage', () => {
  it("answers the tenant's message with its attempts, asking for its own endpoints only", async () => {
    const { service, index } = setup();
    const found = await service.getMessage(acme, 'm-acme');
    expect(found.attempts).toHaveLength(1);
    expect(index.gets).toEqual([{ tenant: 'acme', eventId: 'm-acme', subscribers: ['a-acme', 'a2-acme'] }]);
  });

  it("answers not_found for another tenant's message, even when an index returns it", async () => {
    const { service } = setup();
    const err = await failure(service.getMessage(acme, 'm-globex'));
    expect([err.code, err.status]).toEqual(['not_found', 404]);
    expect((await service.getMessage(operator, 'm-globex', { tenant: 'globex' })).eventId).toBe('m-globex');
  });
});

describe('messagePayload', () => {
  function withEvent(payloads?: 'none' | 'digest' | 'full') {
    const fake = fakePorts([record('a-acme', 'acme'), record('b-globex', 'globex')]);
    fake.index.messages.push(message('m-acme', 'acme'), message('m-globex', 'globex'));
    fake.events.set('m-acme', storedEvent('m-acme', 'order.created', 'acme', '3'));
    const ports = {
      ...fake.ports,
      ...(payloads === undefined ? {} : { payloads }),
      decodeEvent: async () => ({ kind: 'ok', data: { order: 42 } }) as const,
    };
    return new ManagementService(ports);
  }

  it('shows a size and a hash by default, the data only when the operator chose full, nothing for none', async () => {
    const digest = await withEvent().messagePayload(acme, 'm-acme');
    expect(digest).toMatchObject({ mode: 'digest', bytes: expect.any(Number) });
    expect(digest).not.toHaveProperty('data');
    expect(await withEvent('full').messagePayload(acme, 'm-acme')).toMatchObject({
      mode: 'full',
      data: { order: 42 },
    });
    expect(await withEvent('none').messagePayload(acme, 'm-acme')).toEqual({ mode: 'none' });
  });

  it("reads the record the message index names, without the ledger query; the ledger's when the index names none", async () => {
    const fake = fakePorts([record('a-acme', 'acme')]);
    fake.index.messages.push(message('m-acme', 'acme'), message('m-old', 'acme'));
    fake.events.set('m-acme', storedEvent('m-acme', 'order.created', 'acme', '3'));
    fake.events.set('m-old', storedEvent('m-old', 'order.created', 'acme', '4'));
    fake.index.origins.set('acme/m-acme', { topic: 'events', partition: 0, offset: '3' });
    const service = new ManagementService(fake.ports);
    expect(await service.messagePayload(acme, 'm-acme')).toMatchObject({ mode: 'digest', bytes: 15 });
    expect(fake.ledgerAsks).toEqual([]);
    expect(await service.messagePayload(acme, 'm-old')).toMatchObject({ mode: 'digest', bytes: 14 });
    expect(fake.ledgerAsks).toEqual(['m-old']);
  });

  it("is another tenant's message: not found, whatever the mode", async () => {
    const err = await failure(withEvent('full').messagePayload(acme, 'm-globex'));
    expect(err.code).toBe('not_found');
  });
});
