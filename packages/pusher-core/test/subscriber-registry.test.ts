import { describe, expect, it } from 'vitest';
import { decideStart } from '../src/subscriber-registry.ts';

const at = '2026-11-01T00:00:00.000Z';

describe('decideStart', () => {
  it('a new subscriber starts where its start setting says', () => {
    expect(
      decideStart({ registeredAt: null, hasLedger: false, start: 'latest', resumeFrom: undefined }),
    ).toEqual({
      kind: 'start',
      start: 'latest',
      registeredAt: null,
    });
  });

  it('a known subscriber with its ledger resumes from it (start and resumeFrom do not matter)', () => {
    expect(
      decideStart({ registeredAt: at, hasLedger: true, start: 'latest', resumeFrom: 'earliest' }),
    ).toEqual({
      kind: 'start',
      start: 'latest',
      registeredAt: at,
    });
  });

  it('a known subscriber whose ledger is gone refuses, unless told where to resume', () => {
    expect(
      decideStart({ registeredAt: at, hasLedger: false, start: 'latest', resumeFrom: undefined }),
    ).toEqual({
      kind: 'refuse',
      registeredAt: at,
    });
    expect(
      decideStart({ registeredAt: at, hasLedger: false, start: 'latest', resumeFrom: { timestampMs: 5 } }),
    ).toEqual({ kind: 'start', start: { timestampMs: 5 }, registeredAt: at });
  });
});
