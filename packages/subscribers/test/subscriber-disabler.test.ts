import type { AuditRecord, EventDataByType, NoticeType, SubscriberRecord } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { recordDigest } from '../src/audit-records.ts';
import { foldRegistry } from '../src/catalog-records.ts';
import { recordOfDefinition, resumedRecord } from '../src/state-changes.ts';
import { enabledNotice, type NoticeOptions, type NoticePublisher } from '../src/state-notices.ts';
import { SubscriberDisabler } from '../src/subscriber-disabler.ts';
import { definition, NOW, raw, record } from './fixtures.ts';

/** A catalog held in memory, folded from written records like the catalog topic. */
class MemoryCatalog {
  readonly written: SubscriberRecord[] = [];
  readonly initial: SubscriberRecord[];
  constructor(initial: SubscriberRecord[]) {
    this.initial = initial;
  }
  async read() {
    return foldRegistry([...this.initial, ...this.written].map((r) => raw(r.definition.name, r)));
  }
  async write(records: readonly SubscriberRecord[]) {
    this.written.push(...records);
  }
}

class MemoryPublisher implements NoticePublisher {
  readonly published: { type: NoticeType; data: unknown; id: string; key: string; tenant?: string }[] = [];
  async publish<T extends NoticeType>(type: T, data: EventDataByType[T], options: NoticeOptions) {
    this.published.push({ type, data, ...options });
  }
}

function disabler(initial: SubscriberRecord[]) {
  const catalog = new MemoryCatalog(initial);
  const publisher = new MemoryPublisher();
  const d = new SubscriberDisabler({
    catalog,
    publisher: async () => publisher,
    eventsTopic: 'events',
    now: () => NOW,
  });
  return { d, catalog, publisher };
}

describe('SubscriberDisabler', () => {
  it('writes the record disabled (by hookstream, with the cause) and then publishes subscriber.disabled', async () => {
    const { d, catalog, publisher } = disabler([record('billing')]);
    const result = await d.disable({
      name: 'billing',
      cause: 'gone',
      reason: 'the endpoint answered 410 Gone',
      status: 410,
      failingSinceMs: null,
    });
    expect(result.written).toBe(true);
    expect(catalog.written.map((r) => r.state)).toEqual([
      { kind: 'disabled', reason: 'the endpoint answered 410 Gone', at: NOW.toISOString(), cause: 'gone' },
    ]);
    expect(publisher.published).toEqual([
      {
        type: 'subscriber.disabled',
        id: `subscriber.disabled:billing:${Date.parse('2026-05-01T00:00:00.000Z')}`,
        key: 'billing',
        data: {
          subscriber: 'billing',
          cause: 'gone',
          reason: 'the endpoint answered 410 Gone',
          status: 410,
          disabled_at: NOW.toISOString(),
          failing_since: null,
          events_topic: 'events',
        },
      },
    ]);
  });

  it("publishes a tenant's subscriber's notice with its tenant (as ce_tenant), and no tenant otherwise", async () => {
    const acme = record('acme-billing', {
      version: 4,
      definition: definition('acme-billing', { tenant: 'acme' }),
    });
    const { d, publisher } = disabler([acme, record('ops')]);
    const input = { cause: 'gone', reason: '410', status: 410, failingSinceMs: null } as const;
    await d.disable({ name: 'acme-billing', ...input });
    await d.disable({ name: 'ops', ...input });
    expect(publisher.published.map((p) => [p.key, 'tenant' in p ? p.tenant : 'none'])).toEqual([
      ['acme-billing', 'acme'],
      ['ops', 'none'],
    ]);
  });

  it.each([
    ['disabled', { kind: 'disabled', reason: 'earlier', at: NOW.toISOString() }],
    ['paused', { kind: 'paused', reason: 'ops', by: 'ann', at: NOW.toISOString() }],
  ] as const)('writes and announces nothing when the record is already %s', async (_kind, state) => {
    const { d, catalog, publisher } = disabler([record('billing', { state })]);
    const result = await d.disable({
      name: 'billing',
      cause: 'failing',
      reason: 'x',
      status: null,
      failingSinceMs: 0,
    });
    expect(result.written).toBe(false);
    expect(catalog.written).toEqual([]);
    expect(publisher.published).toEqual([]);
  });

  it('a subscriber from a definition file without a record gets one, disabled, with its secret reference', async () => {
    const { d, catalog } = disabler([]);
    const def = definition('solo', { secret: { env: 'HOOKSTREAM_SECRET_SOLO' } });
    await d.disable({
      name: 'solo',
      cause: 'failing',
      reason: 'down for 5 days',
      status: null,
      failingSinceMs: 0,
      definition: def,
    });
    const [written] = catalog.written;
    expect(written?.definition.secret).toBeUndefined();
    expect(written?.secret).toEqual({ env: 'HOOKSTREAM_SECRET_SOLO' });
    expect(written?.state.kind).toBe('disabled');
  });

  it('two replicas disabling the same record at once announce it under one id', async () => {
    const initial = [record('billing')];
    const request = {
      name: 'billing',
      cause: 'gone',
      reason: '410',
      status: 410,
      failingSinceMs: null,
    } as const;
    const [a, b] = [disabler(initial), disabler(initial)];
    await a.d.disable(request);
    // The other replica read the catalog before the first one's write reached it.
    const later = new SubscriberDisabler({
      catalog: b.catalog,
      publisher: async () => b.publisher,
      eventsTopic: 'events',
      now: () => new Date(NOW.getTime() + 7),
    });
    await later.disable(request);
    expect(a.publisher.published[0]?.id).toBe(b.publisher.published[0]?.id);
  });

  it('a notice that cannot be published is reported after its tries; the record stays disabled', async () => {
    const catalog = new MemoryCatalog([record('billing')]);
    let tries = 0;
    const d = new SubscriberDisabler({
      catalog,
      publisher: async () => ({
        publish: async () => {
          tries++;
          throw Object.assign(new Error('not authorized to write hookstream.notices.events'), {
            canRetry: tries < 2,
          });
        },
      }),
      eventsTopic: 'events',
      now: () => NOW,
      noticeRetryMs: [1, 1, 1],
    });
    const result = await d.disable({
      name: 'billing',
      cause: 'gone',
      reason: '410',
      status: 410,
      failingSinceMs: null,
    });
    expect(tries).toBe(2);
    expect(result).toMatchObject({
      written: true,
      record: { state: { kind: 'disabled' } },
      notice: {
        id: expect.stringMatching(/^subscriber\.disabled:billing:/),
        error: expect.stringContaining('not authorized'),
      },
    });
    expect(catalog.written).toHaveLength(1);
  });

  it('refuses an unknown subscriber without a definition', async () => {
    const { d } = disabler([]);
    await expect(
      d.disable({ name: 'ghost', cause: 'gone', reason: 'x', status: 410, failingSinceMs: null }),
    ).rejects.toMatchObject({ code: 'UNKNOWN_SUBSCRIBER' });
  });
});

describe('subscriber.enabled', () => {
  it('says who resumed it and what it had been disabled for', () => {
    const was = record('billing', {
      state: { kind: 'disabled', reason: '410', at: '2026-05-30T00:00:00.000Z' },
    });
    expect(resumedRecord(was, NOW)?.state).toEqual({ kind: 'active' });
    expect(enabledNotice(was, { eventsTopic: 'events', by: 'ann', now: NOW })).toEqual({
      type: 'subscriber.enabled',
      id: `subscriber.enabled:billing:${Date.parse('2026-05-30T00:00:00.000Z')}`,
      key: 'billing',
      data: {
        subscriber: 'billing',
        enabled_at: NOW.toISOString(),
        by: 'ann',
        was_disabled_at: '2026-05-30T00:00:00.000Z',
        was_disabled_reason: '410',
        events_topic: 'events',
      },
    });
    expect(() => enabledNotice(record('x'), { eventsTopic: 'e', by: 'a', now: NOW })).toThrow();
    const acme = record('acme-billing', {
      version: 4,
      definition: definition('acme-billing', { tenant: 'acme' }),
      state: { kind: 'disabled', reason: '410', at: '2026-05-30T00:00:00.000Z' },
    });
    expect(enabledNotice(acme, { eventsTopic: 'events', by: 'ann', now: NOW }).tenant).toBe('acme');
  });

  it('a record made from a definition is active and valid', () => {
    const r = recordOfDefinition(definition('solo'), NOW);
    expect(r.state).toEqual({ kind: 'active' });
    expect(foldRegistry([raw('solo', r)]).problems).toEqual([]);
  });
});

describe('SubscriberDisabler and the audit trail', () => {
  const actor = { kind: 'system', component: 'pusher', instance: 'host:1' } as const;

  it('writes subscriber.disabled with a system actor after the record, chaining the digests', async () => {
    const catalog = new MemoryCatalog([record('billing')]);
    const audits: AuditRecord[] = [];
    const d = new SubscriberDisabler({
      catalog,
      publisher: async () => new MemoryPublisher(),
      eventsTopic: 'events',
      now: () => NOW,
      audit: {
        trail: {
          write: async (records) => {
            // After the change is durable: the catalog already holds it.
            expect(catalog.written).toHaveLength(1);
            audits.push(...records);
          },
        },
        actor,
      },
    });
    const result = await d.disable({
      name: 'billing',
      cause: 'gone',
      reason: '410',
      status: 410,
      failingSinceMs: null,
    });
    expect(result.auditError).toBeNull();
    expect(audits).toEqual([
      expect.objectContaining({
        actor,
        action: 'subscriber.disabled',
        subscriber: 'billing',
        before: recordDigest(record('billing')),
        after: recordDigest(catalog.written[0]),
        detail: { cause: 'gone', status: 410, reason: '410' },
      }),
    ]);
  });

  it('reports an audit record it could not write; the subscriber is disabled all the same', async () => {
    const catalog = new MemoryCatalog([record('billing')]);
    const d = new SubscriberDisabler({
      catalog,
      publisher: async () => new MemoryPublisher(),
      eventsTopic: 'events',
      now: () => NOW,
      audit: {
        trail: {
          write: async () => {
            throw new Error('not authorized');
          },
        },
        actor,
      },
    });
    const result = await d.disable({
      name: 'billing',
      cause: 'gone',
      reason: '410',
      status: 410,
      failingSinceMs: null,
    });
    expect(result).toMatchObject({ written: true, auditError: 'not authorized', notice: { error: null } });
  });
});
