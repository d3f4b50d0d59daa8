import { CE_HEADER, HS_HEADER, readRetryState } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { type Caller, EXAMPLE_SOURCE, ManagementError, ManagementService } from '../src/index.ts';
import { fakePorts, record, storedEvent } from './fake-ports.ts';

const operator: Caller = { scope: { kind: 'operator' }, id: 'tok-op' };
const acme: Caller = { scope: { kind: 'tenant', tenant: 'acme' }, id: 'tok-acme' };
const portal: Caller = {
  scope: { kind: 'tenant', tenant: 'acme' },
  id: 'pl_AAAAAAAAAAAAAAAAAAAA',
  actor: { kind: 'portal', linkId: 'pl_AAAAAAAAAAAAAAAAAAAA', tenant: 'acme', user: 'jo@acme.test' },
};

async function failure(work: Promise<unknown>): Promise<ManagementError> {
  const err = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ManagementError);
  return err as ManagementError;
}

function setup() {
  const orders = { ...record('orders-acme', 'acme') };
  const onlyShipped = record('shipped-acme', 'acme');
  const fake = fakePorts([
    orders,
    { ...onlyShipped, definition: { ...onlyShipped.definition, eventTypes: ['order.shipped'] } },
    record('b-globex', 'globex'),
    record('c-none'),
  ]);
  fake.events.set('evt-acme', storedEvent('evt-acme', 'order.created', 'acme', '7'));
  fake.events.set('evt-globex', storedEvent('evt-globex', 'order.created', 'globex', '8'));
  fake.events.set('evt-none', storedEvent('evt-none', 'order.created', undefined, '9'));
  return { ...fake, service: new ManagementService(fake.ports) };
}

describe('resendMessage', () => {
  it("puts the event's own record on the subscriber's tier 1: same id, key and value, a fresh budget, due now, sent again by the caller", async () => {
    const { service, tierWrites, audit } = setup();
    const answer = await service.resendMessage(portal, { eventId: 'evt-acme', subscriber: 'orders-acme' });
    expect(answer).toEqual({
      eventId: 'evt-acme',
      subscriber: 'orders-acme',
      sentTo: 'hookstream.sub.orders-acme.retry.1:0:1',
    });
    expect(tierWrites).toHaveLength(1);
    const { subscriber, record: written } = tierWrites[0] ?? { subscriber: '', record: undefined };
    expect(subscriber).toBe('orders-acme');
    expect(written?.key).toBe('key-evt-acme');
    expect(written?.value.toString()).toBe('value of evt-acme');
    const headers = written?.headers ?? {};
    expect(headers[CE_HEADER.id]).toBe('evt-acme');
    expect(headers[CE_HEADER.tenant]).toBe('acme');
    expect(headers.traceparent).toBeDefined();
    expect(readRetryState(headers)).toMatchObject({
      eventId: 'evt-acme',
      subscriber: 'orders-acme',
      attempts: 0,
      dueAt: '2026-02-01T00:00:00.000Z',
      origin: { topic: 'events', partition: 0, offset: '7' },
    });
    expect(headers[HS_HEADER.replayedBy]).toBe(portal.id);
    expect(headers[HS_HEADER.replayId]).toMatch(/^rsd_/);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'message.resent',
      subscriber: 'orders-acme',
      tenant: 'acme',
      actor: portal.actor,
      detail: { eventId: 'evt-acme' },
    });
    expect(audit[0]?.before).toBe(audit[0]?.after);
  });

  it("answers not_found for another tenant's event or subscriber, and an unknown id, writing nothing", async () => {
    const { service, tierWrites, audit } = setup();
    for (const ask of [
      { eventId: 'evt-globex', subscriber: 'orders-acme' },
      { eventId: 'evt-none', subscriber: 'orders-acme' },
      { eventId: 'evt-acme', subscriber: 'b-globex' },
      { eventId: 'evt-acme', subscriber: 'c-none' },
      { eventId: 'evt-unknown', subscriber: 'orders-acme' },
    ]) {
      const err = await failure(service.resendMessage(acme, ask));
      expect([err.code, err.status], JSON.stringify(ask)).toEqual(['not_found', 404]);
    }
    // The operator is held to the subscriber's tenant too: globex's event is not acme's subscriber's.
    expect(
      (await failure(service.resendMessage(operator, { eventId: 'evt-globex', subscriber: 'orders-acme' })))
        .code,
    ).toBe('not_found');
    expect(tierWrites).toEqual([]);
    expect(audit).toEqual([]);
  });

  it('lets the operator resend to a subscriber of no tenant, which takes every tenant', async () => {
    const { service, tierWrites } = setup();
    await service.resendMessage(operator, { eventId: 'evt-globex', subscriber: 'c-none' });
    expect(tierWrites.map((w) => w.subscriber)).toEqual(['c-none']);
  });

  it('refuses a subscriber that does not take the type (422), and one with no tier yet (409), writing nothing', async () => {
    const { service, tierWrites, audit, noTier } = setup();
    const notTaken = await failure(
      service.resendMessage(acme, { eventId: 'evt-acme', subscriber: 'shipped-acme' }),
    );
    expect([notTaken.code, notTaken.status]).toEqual(['type_not_taken', 422]);
    noTier.add('orders-acme');
    const noTierYet = await failure(
      service.resendMessage(acme, { eventId: 'evt-acme', subscriber: 'orders-acme' }),
    );
    expect([noTierYet.code, noTierYet.status]).toEqual(['no_retry_tier', 409]);
    expect(tierWrites).toEqual([]);
    expect(audit).toEqual([]);
  });

  it('answers not_found when the record at the origin is gone or is another event', async () => {
    const { service, events, tierWrites } = setup();
    const acmeEvent = storedEvent('evt-acme', 'order.created', 'acme', '7');
    events.set('evt-acme', {
      ...acmeEvent,
      record: { ...acmeEvent.record, headers: { [CE_HEADER.id]: 'other' } },
    });
    expect(
      (await failure(service.resendMessage(acme, { eventId: 'evt-acme', subscriber: 'orders-acme' }))).code,
    ).toBe('not_found');
    expect(tierWrites).toEqual([]);
  });
});

describe('resendMessage: where the event is', () => {
  it("takes the origin from the message index for a tenant's subscriber, without the ledger query", async () => {
    const { service, index, ledgerAsks, tierWrites } = setup();
    index.origins.set('acme/evt-acme', { topic: 'events', partition: 0, offset: '7' });
    await service.resendMessage(operator, { eventId: 'evt-acme', subscriber: 'orders-acme' });
    await service.resendMessage(acme, { eventId: 'evt-acme', subscriber: 'orders-acme' });
    expect(ledgerAsks).toEqual([]);
    expect(tierWrites.map((w) => readRetryState(w.record.headers)?.origin?.offset)).toEqual(['7', '7']);
  });

  it('asks the ledger query when the index has no origin, and for a subscriber of no tenant', async () => {
    const { service, index, ledgerAsks, tierWrites } = setup();
    index.origins.set('acme/evt-none', { topic: 'events', partition: 0, offset: '9' });
    await service.resendMessage(acme, { eventId: 'evt-acme', subscriber: 'orders-acme' });
    await service.resendMessage(operator, { eventId: 'evt-none', subscriber: 'c-none' });
    expect(ledgerAsks).toEqual(['evt-acme', 'evt-none']);
    expect(tierWrites).toHaveLength(2);
  });

  it("is not found when the index names a record that is another event's", async () => {
    const { service, index, tierWrites } = setup();
    index.origins.set('acme/evt-acme', { topic: 'events', partition: 0, offset: '8' });
    const err = await failure(
      service.resendMessage(acme, { eventId: 'evt-acme', subscriber: 'orders-acme' }),
    );
    expect(err.code).toBe('not_found');
    expect(tierWrites).toEqual([]);
  });
});

describe('sendExample', () => {
  it('writes a new event of the type, made from its schema, to that subscriber only, with its tenant', async () => {
    const { service, tierWrites, audit } = setup();
    const answer = await service.sendExample(portal, { subscriber: 'orders-acme', type: 'order.created' });
    expect(answer).toMatchObject({ subscriber: 'orders-acme', type: 'order.created' });
    expect(tierWrites.map((w) => w.subscriber)).toEqual(['orders-acme']);
    const written = tierWrites[0]?.record;
    expect(JSON.parse(written?.value.toString() ?? '')).toEqual({ id: 'example id' });
    expect(written?.headers[CE_HEADER.id]).toBe(answer.eventId);
    expect(written?.headers[CE_HEADER.source]).toBe(EXAMPLE_SOURCE);
    expect(written?.headers[CE_HEADER.tenant]).toBe('acme');
    expect(written?.headers[CE_HEADER.time]).toBe('2026-02-01T00:00:00.000Z');
    expect(readRetryState(written?.headers ?? {})).toMatchObject({ eventId: answer.eventId, attempts: 0 });
    expect(audit[0]).toMatchObject({
      action: 'example.sent',
      actor: portal.actor,
      detail: { eventId: answer.eventId, type: 'order.created' },
    });
  });

  it('refuses a type the subscriber does not take, an unknown type and a notice type (422), writing nothing', async () => {
    const { service, tierWrites, audit } = setup();
    const notTaken = await failure(
      service.sendExample(acme, { subscriber: 'shipped-acme', type: 'order.created' }),
    );
    expect([notTaken.code, notTaken.status]).toEqual(['type_not_taken', 422]);
    for (const type of ['order.unknown', 'subscriber.disabled'])
      expect((await failure(service.sendExample(acme, { subscriber: 'orders-acme', type }))).code).toBe(
        'invalid_body',
      );
    expect(tierWrites).toEqual([]);
    expect(audit).toEqual([]);
  });

  it("answers not_found for another tenant's subscriber, and 503 without an encoder", async () => {
    const { service, tierWrites } = setup();
    expect(
      (await failure(service.sendExample(acme, { subscriber: 'b-globex', type: 'order.created' }))).code,
    ).toBe('not_found');
    const bare = fakePorts([record('orders-acme', 'acme')]);
    const { examples: _none, ...withoutEncoder } = bare.ports;
    const err = await failure(
      new ManagementService(withoutEncoder).sendExample(acme, {
        subscriber: 'orders-acme',
        type: 'order.created',
      }),
    );
    expect([err.code, err.status, err.canRetry]).toEqual(['examples_unavailable', 503, false]);
    expect([...tierWrites, ...bare.tierWrites]).toEqual([]);
  });
});

describe('recover', () => {
  it("is the dead-letter replay job of every reason since the time, leaving out what was replayed before; another tenant's is not_found", async () => {
    const fake = fakePorts([record('orders-acme', 'acme'), record('b-globex', 'globex')]);
    const asked: unknown[] = [];
    const service = new ManagementService({
      ...fake.ports,
      replayDeadLetters: async (request) => {
        asked.push(request);
        const { subscriber, dryRun } = request;
        return {
          replayId: 'r',
          subscriber,
          dryRun,
          topic: 't',
          selected: 0,
          replayed: [],
          alreadyReplayed: [],
          unreplayable: [],
        };
      },
    });
    const since = new Date('2026-01-15T00:00:00.000Z');
    const job = await service.recover(acme, { subscriber: 'orders-acme', since });
    await service.settled();
    expect(job.subscriber).toBe('orders-acme');
    expect(asked).toEqual([
      expect.objectContaining({
        subscriber: 'orders-acme',
        dryRun: false,
        again: false,
        operator: acme.id,
        selection: { eventIds: [], reasons: [], statuses: [], sinceMs: since.getTime() },
      }),
    ]);
    expect((await failure(service.recover(acme, { subscriber: 'b-globex', since }))).code).toBe('not_found');
    expect(asked).toHaveLength(1);
  });
});
