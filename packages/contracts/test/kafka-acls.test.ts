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
