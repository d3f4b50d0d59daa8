import { describe, expect, it } from 'vitest';
import { componentAcls } from '../src/kafka-acls.ts';
import { replayTransactionalId } from '../src/topics.ts';

const transactionalIds = (grants: ReturnType<typeof componentAcls>) =>
  grants.filter((g) => g.resource === 'transactional-id');

describe('the replay lease in the ACLs', () => {
  it("gives a replay operator its own subscriber's replay transactional id, by its literal name", () => {
    expect(replayTransactionalId('billing')).toBe('hookstream.replay.billing');
    expect(transactionalIds(componentAcls({ role: 'replay', subscriber: 'billing' }))).toEqual([
      {
        resource: 'transactional-id',
        pattern: 'literal',
        name: 'hookstream.replay.billing',
        operations: ['WRITE', 'DESCRIBE'],
      },
    ]);
  });

  it("gives the pusher's principal, which the console runs with, every replay's id, and the ingress none", () => {
    expect(transactionalIds(componentAcls({ role: 'pusher', eventsTopic: 'events' }))).toEqual([
      {
        resource: 'transactional-id',
        pattern: 'prefixed',
        name: 'hookstream.replay.',
        operations: ['WRITE', 'DESCRIBE'],
      },
    ]);
    expect(transactionalIds(componentAcls({ role: 'ingress', eventsTopic: 'events' }))).toEqual([]);
  });
});

describe('the audit trail in the ACLs', () => {
  const audit = (grants: ReturnType<typeof componentAcls>) =>
    grants.filter((g) => g.resource === 'topic' && g.name === 'hookstream.audit');

  it('lets the pusher (auto-disable), and the tools and console with its grants, write and read it', () => {
    expect(audit(componentAcls({ role: 'pusher', eventsTopic: 'events' }))).toEqual([
      {
        resource: 'topic',
        pattern: 'literal',
        name: 'hookstream.audit',
        operations: ['READ', 'WRITE', 'CREATE', 'DESCRIBE'],
      },
    ]);
  });

  it('lets a replay operator write its replay record but not read the trail; the ingress nothing', () => {
    expect(audit(componentAcls({ role: 'replay', subscriber: 'billing' }))).toEqual([
      {
        resource: 'topic',
        pattern: 'literal',
        name: 'hookstream.audit',
        operations: ['WRITE', 'CREATE', 'DESCRIBE'],
      },
    ]);
    expect(audit(componentAcls({ role: 'ingress', eventsTopic: 'events' }))).toEqual([]);
  });
});

describe("the management API's ACLs", () => {
  const api = componentAcls({ role: 'api', eventsTopic: 'events' });
  const grant = (resource: string, name: string) =>
    api.filter((g) => g.resource === resource && g.name === name).map((g) => [g.pattern, g.operations]);

  it.each([
    // The events topic: ledgers and the retention headroom, as the pusher reads it.
    ['topic', 'events', 'literal', ['READ', 'DESCRIBE', 'DESCRIBE_CONFIGS']],
    // DLQs, tiers and replay logs: read; tier 1 and the replay log written; a tenant's delete
    // purges; a pull subscriber's tiers and DLQ written, the tiers' retention aligned.
    [
      'topic',
      'hookstream.sub.',
      'prefixed',
      ['READ', 'WRITE', 'CREATE', 'DELETE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
    ],
    // The ledgers: committed offsets and members described, deleted by a purge, moved back by a
    // rewind (an offset commit asks READ), a pull subscriber's joined (READ too).
    ['group', 'hookstream.sub.', 'prefixed', ['READ', 'DELETE', 'DESCRIBE']],
    ['topic', 'hookstream.subscribers', 'literal', ['READ', 'WRITE', 'CREATE', 'DESCRIBE']],
    ['topic', 'hookstream.audit', 'literal', ['READ', 'WRITE', 'CREATE', 'DESCRIBE']],
    // Ledgers read it; a replay writes its steps there only when it exists.
    ['topic', 'hookstream.attempts', 'literal', ['READ', 'WRITE', 'DESCRIBE']],
    ['topic', 'hookstream.instances', 'literal', ['READ', 'DESCRIBE']],
    // subscriber.enabled on resume; a pull subscriber that takes notices reads them.
    ['topic', 'hookstream.notices.events', 'literal', ['READ', 'WRITE', 'CREATE', 'DESCRIBE']],
    ['group', 'hookstream.tool.', 'prefixed', ['READ', 'DESCRIBE']],
    ['transactional-id', 'hookstream.replay.', 'prefixed', ['WRITE', 'DESCRIBE']],
  ])('grants %s %s (%s): %j', (resource, name, pattern, operations) => {
    expect(grant(resource, name)).toEqual([[pattern, operations]]);
  });

  it("grants nothing else: no other topic, and settings only of subscribers' own topics", () => {
    expect(api).toHaveLength(11);
    // The portal's links topic is the API's alone: no pusher or replay operator reads it.
    expect(api.find((g) => g.name === 'hookstream.portal-links')?.operations).toEqual([
      'READ',
      'WRITE',
      'CREATE',
      'DESCRIBE',
    ]);
    expect(api.filter((g) => g.operations.includes('ALTER_CONFIGS')).map((g) => g.name)).toEqual([
      'hookstream.sub.',
    ]);
    expect(api.filter((g) => g.operations.includes('DESCRIBE_CONFIGS')).map((g) => g.name)).toEqual([
      'events',
      'hookstream.sub.',
    ]);
  });

  it("shares the pusher's pieces where they do the same, and only the API may delete", () => {
    const pusher = componentAcls({ role: 'pusher', eventsTopic: 'events' });
    const same = (name: string) =>
      expect(api.find((g) => g.name === name)).toEqual(pusher.find((g) => g.name === name));
    for (const name of [
      'events',
      'hookstream.subscribers',
      'hookstream.audit',
      'hookstream.tool.',
      'hookstream.replay.',
    ])
      same(name);
    for (const role of [
      componentAcls({ role: 'pusher', eventsTopic: 'events' }),
      componentAcls({ role: 'replay', subscriber: 'billing' }),
      componentAcls({ role: 'ingress', eventsTopic: 'events' }),
    ])
      expect(role.flatMap((g) => g.operations)).not.toContain('DELETE');
  });
});
