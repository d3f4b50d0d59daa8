import { SubscriberDefinition, type SubscriberRecord } from '@hookstream/contracts';
import type { CatalogSnapshot } from '@hookstream/subscribers';
import { describe, expect, it } from 'vitest';
import { fleetMembers, RecordDerivations } from '../src/fleet-members.ts';

const TOPIC = 'events';

function record(name: string, url = 'https://example.com/hook'): SubscriberRecord {
  return {
    version: 3,
    definition: SubscriberDefinition.parse({ name, url }),
    state: { kind: 'active' },
    createdAt: '2026-12-01T00:00:00.000Z',
    updatedAt: '2026-12-01T00:00:00.000Z',
  } as SubscriberRecord;
}

function snapshot(records: readonly SubscriberRecord[]): CatalogSnapshot {
  return {
    subscribers: new Map(records.map((r) => [r.definition.name, r])),
    problems: [],
    registrations: new Map(),
    registeredAt: new Map(),
    bindings: new Map(),
    revisions: new Map(),
    lost: [],
  };
}

describe('fleetMembers with RecordDerivations', () => {
  it('keeps an unchanged record’s topology and fingerprint across looks, and rebuilds a changed one', async () => {
    const derivations = new RecordDerivations();
    const billing = record('billing');
    const crm = record('crm');
    const first = await fleetMembers(
      snapshot([billing, crm]),
      { eventsTopic: TOPIC },
      new Map(),
      derivations,
    );
    // The next snapshot keeps billing's object and carries a new record for crm.
    const crmMoved = record('crm', 'https://example.com/moved');
    const second = await fleetMembers(
      snapshot([billing, crmMoved]),
      { eventsTopic: TOPIC },
      new Map(),
      derivations,
    );
    const byName = (ms: typeof first.members) => new Map(ms.map((m) => [m.topology.name, m]));
    const [a, b] = [byName(first.members), byName(second.members)];
    expect(b.get('billing')?.topology).toBe(a.get('billing')?.topology);
    expect(b.get('billing')?.fingerprint).toBe(a.get('billing')?.fingerprint);
    expect(b.get('crm')?.topology).not.toBe(a.get('crm')?.topology);
    expect(b.get('crm')?.fingerprint).not.toBe(a.get('crm')?.fingerprint);
    expect(b.get('crm')?.topology.definition.url).toBe('https://example.com/moved');
  });

  it('gives an equal record the fingerprint a fresh look gives it, and builds per events topic', async () => {
    const shared = new RecordDerivations();
    const billing = record('billing');
    const cached = await fleetMembers(snapshot([billing]), { eventsTopic: TOPIC }, new Map(), shared);
    const fresh = await fleetMembers(snapshot([record('billing')]), { eventsTopic: TOPIC });
    expect(cached.members[0]?.fingerprint).toBe(fresh.members[0]?.fingerprint);
    const other = await fleetMembers(snapshot([billing]), { eventsTopic: 'other-events' }, new Map(), shared);
    expect(other.members[0]?.topology.eventsTopic).toBe('other-events');
  });
});
