import { describe, expect, it } from 'vitest';
import { auditRecordOf, encodeAuditRecord } from '../src/audit-records.ts';
import { type RawAuditRecord, selectAuditRecords } from '../src/audit-selection.ts';
import { definition, NOW, record } from './fixtures.ts';

const alice = { kind: 'user', user: 'alice' } as const;

function change(name: string, atMs: number, tenant?: string): RawAuditRecord {
  const r =
    tenant === undefined
      ? record(name)
      : { ...record(name, { version: 4 }), definition: definition(name, { tenant }) };
  const audit = auditRecordOf({
    actor: alice,
    action: 'subscriber.created',
    subscriber: name,
    before: null,
    after: r,
    now: new Date(atMs),
  });
  return { ...encodeAuditRecord(audit), offset: `0:${atMs}` };
}

const t0 = NOW.getTime();
const trail = [
  change('a', t0),
  change('b', t0 + 1000, 'acme'),
  change('a', t0 + 2000),
  change('c', t0 + 3000, 'other'),
];

describe('selectAuditRecords', () => {
  it('keeps everything in topic order without a selection', () => {
    const { records, problems } = selectAuditRecords(trail, {});
    expect(records.map((r) => r.subscriber)).toEqual(['a', 'b', 'a', 'c']);
    expect(problems).toEqual([]);
  });

  it('selects by subscriber, tenant and time, all of them holding', () => {
    expect(selectAuditRecords(trail, { subscriber: 'a' }).records.map((r) => r.at)).toEqual([
      new Date(t0).toISOString(),
      new Date(t0 + 2000).toISOString(),
    ]);
    expect(selectAuditRecords(trail, { tenant: 'acme' }).records.map((r) => r.subscriber)).toEqual(['b']);
    expect(selectAuditRecords(trail, { sinceMs: t0 + 1500 }).records.map((r) => r.subscriber)).toEqual([
      'a',
      'c',
    ]);
    expect(selectAuditRecords(trail, { subscriber: 'a', tenant: 'acme' }).records).toEqual([]);
  });

  it("never gives a tenant another's record, even one whose header lies about its body", () => {
    const other = change('c', t0, 'other');
    const forged = { ...other, headers: { ce_tenant: 'acme' } };
    const { records, problems } = selectAuditRecords([forged], { tenant: 'acme' });
    expect(records).toEqual([]);
    expect(problems).toEqual([{ offset: forged.offset, error: expect.stringContaining('differs') }]);
  });

  it('reports unreadable records of the selection and skips others unread', () => {
    const bad = [
      { key: 'a', value: Buffer.from('{'), headers: {}, offset: '0:1' },
      { key: 'a', value: null, headers: {}, offset: '0:2' },
      { key: 'a', value: Buffer.from('{"version":1}'), headers: {}, offset: '0:3' },
      { key: 'z', value: Buffer.from('{'), headers: {}, offset: '0:4' },
    ];
    const { records, problems } = selectAuditRecords(bad, { subscriber: 'a' });
    expect(records).toEqual([]);
    expect(problems.map((p) => p.offset)).toEqual(['0:1', '0:2', '0:3']);
  });
});
