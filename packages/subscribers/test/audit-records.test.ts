import { AuditRecord, type SubscriberRecord } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import {
  applyAuditRecords,
  auditRecordOf,
  canonicalJson,
  encodeAuditRecord,
  recordDigest,
} from '../src/audit-records.ts';
import { encodeSubscriberRecord, parseSubscriberRecord } from '../src/catalog-records.ts';
import { newManagedSecret } from '../src/managed-secret.ts';
import { pausedRecord } from '../src/state-changes.ts';
import { binding, definition, NOW, newKey, record } from './fixtures.ts';

const alice = { kind: 'user', user: 'alice' } as const;

/** The record as the next reader of the catalog topic gets it. */
function readBack(r: SubscriberRecord): SubscriberRecord {
  const parsed = parseSubscriberRecord(r.definition.name, encodeSubscriberRecord(r));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[{"y":2,"z":1}]},"b":1}',
    );
  });
});

describe('recordDigest', () => {
  it('is sha256 of the record, the same for the same record, null for none', () => {
    const digest = recordDigest(record('billing'));
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(recordDigest(record('billing'))).toBe(digest);
    expect(recordDigest(null)).toBeNull();
    expect(recordDigest(undefined)).toBeNull();
  });

  it('does not depend on the order of the fields', () => {
    const r = record('billing');
    const reordered = Object.fromEntries(Object.entries(r).reverse()) as SubscriberRecord;
    expect(recordDigest(reordered)).toBe(recordDigest(r));
  });

  it('differs when anything changes', () => {
    const r = record('billing');
    expect(recordDigest(pausedRecord(r, { reason: '', by: 'alice', now: NOW }))).not.toBe(recordDigest(r));
    expect(
      recordDigest({ ...r, definition: definition('billing', { eventTypes: ['order.created'] }) }),
    ).not.toBe(recordDigest(r));
  });

  it('of a record being written equals that of the same record read back (one after is the next before)', () => {
    const r = { ...record('billing'), secret: newManagedSecret(newKey(), binding('billing'), NOW) };
    expect(recordDigest(readBack(r))).toBe(recordDigest(r));
  });
});

describe('auditRecordOf', () => {
  it('builds a valid record with both digests, the tenant and no secret in clear or sealed', () => {
    const secret = newManagedSecret(newKey(), binding('billing'), NOW, () => 'whsec_topsecretvalue');
    const before = {
      ...record('billing', { version: 4 }),
      secret,
      definition: definition('billing', { tenant: 'acme' }),
    };
    const after = pausedRecord(before, { reason: 'maintenance', by: 'alice', now: NOW });
    const audit = auditRecordOf({
      actor: alice,
      action: 'subscriber.paused',
      subscriber: 'billing',
      before,
      after,
      now: NOW,
      id: '0b6f3c1e-8d3a-4f6e-9a51-2c1d7e0f9b42',
    });
    expect(AuditRecord.parse(audit)).toEqual(audit);
    expect(audit).toEqual({
      version: 1,
      id: '0b6f3c1e-8d3a-4f6e-9a51-2c1d7e0f9b42',
      at: NOW.toISOString(),
      actor: alice,
      action: 'subscriber.paused',
      subscriber: 'billing',
      tenant: 'acme',
      before: recordDigest(before),
      after: recordDigest(after),
    });
    const text = encodeAuditRecord(audit).value.toString('utf8');
    expect(text).not.toContain('whsec_topsecretvalue');
    expect(text).not.toContain(secret.current.ciphertext);
  });

  it('gives each record its own id, and refuses what the contract refuses', () => {
    const change = {
      actor: alice,
      action: 'subscriber.deleted',
      subscriber: 'billing',
      before: record('billing'),
      after: null,
      now: NOW,
    } as const;
    expect(auditRecordOf(change).id).not.toBe(auditRecordOf(change).id);
    expect(auditRecordOf(change).after).toBeNull();
    expect(() => auditRecordOf({ ...change, actor: { kind: 'user', user: '' } })).toThrow();
  });
});

describe('encodeAuditRecord', () => {
  it('keys by subscriber and sets ce_tenant only for a tenant', () => {
    const plain = auditRecordOf({
      actor: alice,
      action: 'subscriber.created',
      subscriber: 'a',
      before: null,
      after: record('a'),
      now: NOW,
    });
    expect(encodeAuditRecord(plain)).toMatchObject({ key: 'a', headers: {} });
    const tenant = auditRecordOf({
      actor: alice,
      action: 'dead_letters.replayed',
      subscriber: 'a',
      before: null,
      after: null,
      tenant: 'acme',
      detail: { replayed: 2 },
      now: NOW,
    });
    expect(encodeAuditRecord(tenant)).toMatchObject({ key: 'a', headers: { ce_tenant: 'acme' } });
    expect(JSON.parse(encodeAuditRecord(tenant).value.toString('utf8'))).toEqual(tenant);
  });
});

describe('applyAuditRecords', () => {
  it('says created for a new name and updated for a known one, chaining the digests', () => {
    const old = record('b');
    const next = { ...old, definition: definition('b', { eventTypes: ['x.y'] }) };
    const [created, updated] = applyAuditRecords(new Map([['b', old]]), [record('a'), next], alice, NOW);
    expect(created).toMatchObject({
      action: 'subscriber.created',
      subscriber: 'a',
      before: null,
      after: recordDigest(record('a')),
    });
    expect(updated).toMatchObject({
      action: 'subscriber.updated',
      subscriber: 'b',
      before: recordDigest(old),
      after: recordDigest(next),
    });
  });
});
