import { HS_HEADER } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { boundedDueAtMs, MAX_DUE_AHEAD_MS } from '../src/due-at.ts';
import { tierRecord } from './fakes.ts';

const now = Date.parse('2026-11-30T12:00:00Z');

function withDueAt(dueAt: string | undefined, timestampMs = now - 1000) {
  const record = tierRecord(1);
  const { [HS_HEADER.dueAt]: _, ...headers } = record.headers;
  return {
    ...record,
    timestampMs,
    headers: dueAt === undefined ? headers : { ...headers, [HS_HEADER.dueAt]: dueAt },
  };
}

describe('boundedDueAtMs', () => {
  it('keeps a due time the policy could have written', () => {
    expect(boundedDueAtMs(withDueAt('2026-11-30T12:10:00Z'), now)).toBe(Date.parse('2026-11-30T12:10:00Z'));
  });

  it('holds year 9999 to the longest wait after the record was written', () => {
    expect(boundedDueAtMs(withDueAt('9999-12-31T23:59:59Z'), now)).toBe(now - 1000 + MAX_DUE_AHEAD_MS);
  });

  it('a write time in the future cannot push the bound ahead of now', () => {
    expect(boundedDueAtMs(withDueAt('9999-12-31T23:59:59Z', now + 10 * MAX_DUE_AHEAD_MS), now)).toBe(
      now + MAX_DUE_AHEAD_MS,
    );
  });

  it('no or unreadable due time: none', () => {
    expect(boundedDueAtMs(withDueAt(undefined), now)).toBeNull();
    expect(boundedDueAtMs(withDueAt('soon'), now)).toBeNull();
  });

  it('the longest wait stays within what a Node timer holds', () => {
    expect(MAX_DUE_AHEAD_MS).toBeLessThan(2 ** 31 - 1);
  });
});
