import type { InstanceStatus } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { foldInstanceStatuses, placements, unreadableRecords } from '../src/instance-statuses.ts';
import { record as catalogRecord } from './fixtures.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function status(
  instance: string,
  atMsAgo: number,
  subscribers: InstanceStatus['subscribers'],
): InstanceStatus {
  return {
    version: 1,
    instance,
    host: 'h',
    pid: 1,
    startedAt: '2026-12-01T11:00:00Z',
    at: new Date(NOW - atMsAgo).toISOString(),
    everyMs: 5000,
    subscribers,
  };
}

const record = (key: string, value: InstanceStatus | string | null) => ({
  key,
  value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
});

describe('foldInstanceStatuses', () => {
  it('keeps the last record per instance; a tombstone, a stale or an unreadable record drops it', () => {
    const running = (name: string) => ({ name, state: 'running' as const, oldestUnsettledAt: null });
    const folded = foldInstanceStatuses(
      [
        record('a', status('a', 30_000, [running('x')])),
        record('a', status('a', 1000, [running('y')])),
        record('stopped', status('stopped', 1000, [running('x')])),
        record('stopped', null),
        // Three periods (15 s) without a write: killed or frozen.
        record('killed', status('killed', 15_001, [running('x')])),
        record('recent', status('recent', 14_999, [running('x')])),
        record('garbage', '{"version":1'),
        record('wrong', JSON.stringify({ version: 2 })),
      ],
      NOW,
    );
    expect(folded.map((s) => [s.instance, s.subscribers.map((x) => x.name)])).toEqual([
      ['a', ['y']],
      ['recent', ['x']],
    ]);
  });
});

describe('placements', () => {
  it('names the instances of each subscriber, its failures apart, and the oldest unsettled time', () => {
    const where = placements([
      status('b', 0, [
        { name: 'x', state: 'running', oldestUnsettledAt: '2026-12-01T11:59:50.000Z' },
        { name: 'y', state: 'failed', oldestUnsettledAt: null, error: 'NO_EVENTS_TOPIC: gone' },
      ]),
      status('a', 0, [
        { name: 'x', state: 'starting', oldestUnsettledAt: '2026-12-01T11:59:40.000Z' },
        { name: 'y', state: 'running', oldestUnsettledAt: null },
      ]),
    ]);
    expect(where.get('x')).toEqual({
      instances: ['a', 'b'],
      failed: [],
      oldestUnsettledAtMs: Date.parse('2026-12-01T11:59:40.000Z'),
      breaker: null,
      recent: null,
    });
    expect(where.get('y')).toEqual({
      instances: ['a'],
      failed: [{ instance: 'b', error: 'NO_EVENTS_TOPIC: gone' }],
      oldestUnsettledAtMs: null,
      breaker: null,
      recent: null,
    });
    expect(where.has('z')).toBe(false);
  });

  it('sums the recent attempts and deliveries its instances report', () => {
    const recent = (attempts: number, delivered: number) => ({ windowMs: 300_000, attempts, delivered });
    const where = placements([
      status('a', 0, [{ name: 'x', state: 'running', oldestUnsettledAt: null, recent: recent(10, 9) }]),
      status('b', 0, [{ name: 'x', state: 'running', oldestUnsettledAt: null, recent: recent(4, 1) }]),
      status('c', 0, [{ name: 'x', state: 'running', oldestUnsettledAt: null }]),
    ]);
    expect(where.get('x')?.recent).toEqual(recent(14, 10));
  });

  it.each([
    [['closed', 'closed'], 'closed'],
    [['closed', 'half-open'], 'half-open'],
    [['open', 'half-open'], 'open'],
    [['closed', undefined], 'closed'],
  ] as const)('reports the worst breaker state its instances see: %o is %s', (states, worst) => {
    const where = placements(
      states.map((breaker, i) =>
        status(`i${i}`, 0, [
          { name: 'x', state: 'running', oldestUnsettledAt: null, ...(breaker ? { breaker } : {}) },
        ]),
      ),
    );
    expect(where.get('x')?.breaker).toBe(worst);
  });
});

describe('unreadableRecords', () => {
  const base = catalogRecord('r');
  const v3 = { ...base, version: 3 as const, definition: { ...base.definition, required: true } };
  it('names the instances too old to read a record and the fields that need the newer version', () => {
    const old = status('old', 0, []);
    const current = { ...status('new', 0, []), recordVersions: [1, 2, 3] };
    expect(unreadableRecords([v3], [current])).toEqual([]);
    expect(unreadableRecords([v3, base], [current, old])).toEqual([
      { subscriber: 'r', version: 3, fields: ['required'], instances: ['old'] },
    ]);
  });

  it('a version-3 instance cannot read a tenant (version 4): it would deliver every tenant its events', () => {
    const v4 = { ...base, version: 4 as const, definition: { ...base.definition, tenant: 'acme' } };
    const v3Fleet = { ...status('v3', 0, []), recordVersions: [1, 2, 3] };
    const v4Fleet = { ...status('v4', 0, []), recordVersions: [1, 2, 3, 4] };
    expect(unreadableRecords([v4, v3], [v3Fleet, v4Fleet])).toEqual([
      { subscriber: 'r', version: 4, fields: ['tenant'], instances: ['v3'] },
    ]);
    expect(unreadableRecords([v4], [v4Fleet])).toEqual([]);
  });

  it('a version-4 instance cannot read fairness (version 5): it would deliver in order of arrival', () => {
    const v5 = {
      ...base,
      version: 5 as const,
      definition: { ...base.definition, fairness: 'tenant' as const },
    };
    const v4Fleet = { ...status('v4', 0, []), recordVersions: [1, 2, 3, 4] };
    const v5Fleet = { ...status('v5', 0, []), recordVersions: [1, 2, 3, 4, 5] };
    expect(unreadableRecords([v5], [v4Fleet, v5Fleet])).toEqual([
      { subscriber: 'r', version: 5, fields: ['fairness'], instances: ['v4'] },
    ]);
    expect(unreadableRecords([v5], [v5Fleet])).toEqual([]);
  });

  it('a version-5 instance cannot read a filter (version 6): it would deliver what the filter refuses', () => {
    const v6 = {
      ...base,
      version: 6 as const,
      definition: { ...base.definition, filter: { exact: { source: 'billing' } } },
    };
    const v5Fleet = { ...status('v5', 0, []), recordVersions: [1, 2, 3, 4, 5] };
    const v6Fleet = { ...status('v6', 0, []), recordVersions: [1, 2, 3, 4, 5, 6] };
    expect(unreadableRecords([v6], [v5Fleet, v6Fleet])).toEqual([
      { subscriber: 'r', version: 6, fields: ['filter'], instances: ['v5'] },
    ]);
    expect(unreadableRecords([v6], [v6Fleet])).toEqual([]);
  });
  it('a version-6 instance cannot read outbound auth (version 7): it would deliver without the credentials', () => {
    const v7 = {
      ...base,
      version: 7 as const,
      definition: {
        ...base.definition,
        oauth2: {
          tokenUrl: 'https://auth.example/token',
          clientId: 'c',
          clientSecret: { env: 'HOOKSTREAM_OAUTH_C' },
        },
        clientCertificate: {
          cert: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
          key: { env: 'HOOKSTREAM_CLIENT_KEY_C' },
        },
      },
    };
    const v6Fleet = { ...status('v6', 0, []), recordVersions: [1, 2, 3, 4, 5, 6] };
    const v7Fleet = { ...status('v7', 0, []), recordVersions: [1, 2, 3, 4, 5, 6, 7] };
    expect(unreadableRecords([v7], [v6Fleet, v7Fleet])).toEqual([
      { subscriber: 'r', version: 7, fields: ['oauth2', 'clientCertificate'], instances: ['v6'] },
    ]);
    expect(unreadableRecords([v7], [v7Fleet])).toEqual([]);
  });
});
