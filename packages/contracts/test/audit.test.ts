import { describe, expect, it } from 'vitest';
import { AUDIT_RETENTION_MS, AUDIT_TOPIC, AuditRecord } from '../src/index.ts';

const digest = `sha256:${'a'.repeat(64)}`;
const base = {
  version: 1,
  id: '0b6f3c1e-8d3a-4f6e-9a51-2c1d7e0f9b42',
  at: '2026-12-03T18:00:00.000Z',
  actor: { kind: 'user', user: 'alice' },
  action: 'subscriber.updated',
  subscriber: 'billing',
  before: digest,
  after: `sha256:${'b'.repeat(64)}`,
};

describe('AuditRecord', () => {
  it('names its topic and keeps a year', () => {
    expect(AUDIT_TOPIC).toBe('hookstream.audit');
    expect(AUDIT_RETENTION_MS).toBe(365 * 86_400_000);
  });

  it('takes each kind of actor', () => {
    for (const actor of [
      { kind: 'user', user: 'alice' },
      { kind: 'token', tokenId: 'tok_1', tenant: 'acme' },
      { kind: 'token', tokenId: 'tok_1' },
      { kind: 'system', component: 'pusher', instance: 'host:12' },
    ])
      expect(AuditRecord.safeParse({ ...base, actor }).success).toBe(true);
    expect(AuditRecord.safeParse({ ...base, actor: { kind: 'user' } }).success).toBe(false);
    expect(AuditRecord.safeParse({ ...base, actor: { kind: 'robot', user: 'x' } }).success).toBe(false);
  });

  it('takes null digests (created, deleted) but not a digest of another form', () => {
    expect(AuditRecord.safeParse({ ...base, action: 'subscriber.created', before: null }).success).toBe(true);
    expect(AuditRecord.safeParse({ ...base, action: 'subscriber.deleted', after: null }).success).toBe(true);
    expect(AuditRecord.safeParse({ ...base, before: 'a'.repeat(64) }).success).toBe(false);
    expect(AuditRecord.safeParse({ ...base, before: `sha256:${'A'.repeat(64)}` }).success).toBe(false);
  });

  it('refuses an unknown action, a bad subscriber name or tenant, and an unbounded detail', () => {
    expect(AuditRecord.safeParse({ ...base, action: 'subscriber.renamed' }).success).toBe(false);
    expect(AuditRecord.safeParse({ ...base, subscriber: 'Bad Name' }).success).toBe(false);
    expect(AuditRecord.safeParse({ ...base, tenant: 'a b' }).success).toBe(false);
    expect(AuditRecord.safeParse({ ...base, detail: { replayed: 3, ids: ['a', 'b'] } }).success).toBe(true);
    const wide = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]));
    expect(AuditRecord.safeParse({ ...base, detail: wide }).success).toBe(false);
    expect(AuditRecord.safeParse({ ...base, detail: { note: 'x'.repeat(1001) } }).success).toBe(false);
  });
});
