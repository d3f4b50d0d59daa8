import { describe, expect, it } from 'vitest';
import { decideStart, latestRegistration } from '../src/ledger-registrations.ts';

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

  it('an unreadable registration and no ledger: new or lost is unknown, so it refuses unless told where', () => {
    const unreadable = 'the record does not parse as a registration';
    expect(
      decideStart({
        registeredAt: null,
        unreadable,
        hasLedger: false,
        start: 'latest',
        resumeFrom: undefined,
      }),
    ).toEqual({ kind: 'unreadable', problem: unreadable });
    expect(
      decideStart({
        registeredAt: null,
        unreadable,
        hasLedger: false,
        start: 'latest',
        resumeFrom: 'earliest',
      }),
    ).toEqual({ kind: 'start', start: 'earliest', registeredAt: null });
    // With a ledger the group resumes from it whatever the catalog says.
    expect(
      decideStart({
        registeredAt: null,
        unreadable,
        hasLedger: true,
        start: 'latest',
        resumeFrom: undefined,
      }),
    ).toEqual({ kind: 'start', start: 'latest', registeredAt: null });
  });
});

describe('latestRegistration', () => {
  const good = (registeredAt: string) =>
    Buffer.from(JSON.stringify({ name: 'a', eventsTopic: 'e', registeredAt, lastStartedAt: registeredAt }));
  it('keeps the last good record past a bad one, forgets at a tombstone, reports a bad one with nothing before', () => {
    expect(latestRegistration([])).toEqual({ registeredAt: null });
    expect(latestRegistration([good(at), Buffer.from('{')])).toEqual({ registeredAt: at });
    expect(latestRegistration([good(at), null])).toEqual({ registeredAt: null });
    expect(latestRegistration([good(at), null, Buffer.from('[]')])).toEqual({
      registeredAt: null,
      unreadable: 'the record does not parse as a registration',
    });
    expect(latestRegistration([Buffer.from('x'), good(at)])).toEqual({ registeredAt: at });
  });
});
