import type { AuditRecord, SubscriberRecord } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { recordDigest } from '../src/audit-records.ts';
import { foldRegistry } from '../src/catalog-records.ts';
import { CatalogError } from '../src/errors.ts';
import { changeSubscriberState } from '../src/state-change.ts';
import { disabledRecord } from '../src/state-changes.ts';
import { NOW, raw, record } from './fixtures.ts';

const alice = { kind: 'user', user: 'alice' } as const;

function context(initial: SubscriberRecord, write: (records: readonly AuditRecord[]) => Promise<void>) {
  const written: SubscriberRecord[] = [];
  const published: string[] = [];
  return {
    written,
    published,
    context: {
      catalog: {
        read: async () => foldRegistry([...[initial], ...written].map((r) => raw(r.definition.name, r))),
        write: async (records: readonly SubscriberRecord[]) => {
          written.push(...records);
        },
      },
      openPublisher: async () => ({
        publish: async (type: string) => {
          published.push(type);
        },
        close: async () => undefined,
      }),
      audit: { trail: { write }, actor: alice },
    },
  };
}

const request = { name: 'billing', by: 'alice', eventsTopic: 'events', now: NOW } as const;

describe('changeSubscriberState and the audit trail', () => {
  it('records a pause after the record is written, and nothing when nothing changed', async () => {
    const audits: AuditRecord[] = [];
    const { context: c, written } = context(record('billing'), async (records) => {
      expect(written).toHaveLength(1);
      audits.push(...records);
    });
    await changeSubscriberState(c, { ...request, action: 'pause', reason: 'maintenance' });
    expect(audits).toEqual([
      expect.objectContaining({
        actor: alice,
        action: 'subscriber.paused',
        before: recordDigest(record('billing')),
        after: recordDigest(written[0]),
        detail: { by: 'alice', reason: 'maintenance' },
      }),
    ]);
    const { context: idle } = context(record('billing'), async (records) => {
      audits.push(...records);
    });
    await changeSubscriberState(idle, { ...request, action: 'resume' });
    expect(audits).toHaveLength(1);
  });

  it('throws AUDIT_NOT_WRITTEN when the trail fails, after the change and its notice', async () => {
    const disabled = disabledRecord(record('billing'), { reason: '410', cause: 'gone', now: NOW });
    const failure = new CatalogError('AUDIT_NOT_WRITTEN', 'the change was made, but…', false);
    const {
      context: c,
      written,
      published,
    } = context(disabled, async () => {
      throw failure;
    });
    await expect(changeSubscriberState(c, { ...request, action: 'resume' })).rejects.toBe(failure);
    expect(written.map((r) => r.state.kind)).toEqual(['active']);
    expect(published).toEqual(['subscriber.enabled']);
  });
});
