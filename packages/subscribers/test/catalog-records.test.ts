import { SUBSCRIBER_RECORD_VERSION } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { encodeSubscriberRecord, foldRegistry, parseSubscriberRecord } from '../src/catalog-records.ts';
import { raw, record } from './fixtures.ts';

const registration = {
  name: 'a',
  eventsTopic: 'events',
  registeredAt: '2026-05-01T00:00:00Z',
  lastStartedAt: '2026-05-01T00:00:00Z',
};

describe('foldRegistry', () => {
  it('keeps the latest record per name, skips registrations, a tombstone deletes', () => {
    const a1 = record('a');
    const a2 = { ...record('a'), updatedAt: '2026-05-02T00:00:00.000Z' };
    const snap = foldRegistry([
      raw('a', a1),
      raw('events/a', registration),
      raw('b', record('b')),
      raw('a', a2),
      raw('b', null),
      raw('other-events/a', registration),
    ]);
    expect([...snap.subscribers.keys()]).toEqual(['a']);
    expect(snap.subscribers.get('a')?.updatedAt).toBe('2026-05-02T00:00:00.000Z');
    expect(snap.problems).toEqual([]);
    expect(snap.registrations.get('a')).toEqual(['events/a', 'other-events/a']);
  });

  it('reports bad JSON and invalid records with their key, keeping the last good record', () => {
    const snap = foldRegistry([
      raw('a', record('a'), '0:1'),
      raw('a', '{ broken', '0:2'),
      raw('c', { version: 99, definition: {} }, '0:3'),
      raw('d', record('x'), '0:4'),
      raw('Bad Key', record('a'), '0:5'),
    ]);
    expect([...snap.subscribers.keys()]).toEqual(['a']);
    const problems = Object.fromEntries(snap.problems.map((p) => [p.key, p]));
    expect(problems.a).toMatchObject({ offset: '0:2', error: expect.stringMatching(/^not JSON/) });
    expect(problems.c?.error).toBe(
      `record version 99 is newer than this code reads (up to ${SUBSCRIBER_RECORD_VERSION}): upgrade it`,
    );
    expect(problems.d?.error).toBe('the definition is named "x", the key "d"');
    expect(problems['Bad Key']?.error).toMatch(/not a subscriber name/);
  });

  it('a later good record or tombstone clears a problem', () => {
    const snap = foldRegistry([raw('a', 'nope'), raw('a', record('a')), raw('b', 'nope'), raw('b', null)]);
    expect(snap.problems).toEqual([]);
    expect([...snap.subscribers.keys()]).toEqual(['a']);
  });

  it('an unreadable registration is reported by key and the last good one stands', () => {
    const bad = foldRegistry([raw('events/a', registration), raw('events/a', '{"name":')]);
    expect(bad.registeredAt.get('events/a')).toBe(registration.registeredAt);
    expect(bad.problems.map((p) => p.key)).toEqual(['events/a']);
    const only = foldRegistry([raw('events/b', { not: 'a registration' })]);
    expect(only.registeredAt.has('events/b')).toBe(false);
    expect(only.problems[0]?.error).toMatch(/does not parse as a registration/);
    expect(foldRegistry([raw('events/b', '{'), raw('events/b', null)]).problems).toEqual([]);
  });

  it('a registration tombstone forgets it', () => {
    expect(foldRegistry([raw('events/a', registration), raw('events/a', null)]).registrations.size).toBe(0);
  });
});

describe('record codec', () => {
  it('round-trips and refuses a definition carrying a secret', () => {
    const r = record('a', { secret: { env: 'HOOKSTREAM_SECRET_A' } });
    const back = parseSubscriberRecord('a', encodeSubscriberRecord(r));
    expect(back).toEqual({ ok: true, value: r });
    const bad = { ...r, definition: { ...r.definition, secret: { env: 'HOOKSTREAM_SECRET_A' } } };
    expect(parseSubscriberRecord('a', Buffer.from(JSON.stringify(bad)))).toMatchObject({
      ok: false,
      error: expect.stringContaining('definition.secret'),
    });
  });

  // What a catalog writer could produce by hand onto the topic: the fleet reports and skips it.
  it.each([
    [
      'a header naming the secrets key',
      { headers: { 'X-Leak': { env: 'HOOKSTREAM_SECRETS_KEY' } } },
      'definition.headers.X-Leak.env',
    ],
    ['a secret naming an unprefixed variable', { secret: { env: 'AWS_SECRET_ACCESS_KEY' } }, 'secret.env'],
  ])('refuses a record with %s, naming the field', (_what, change, field) => {
    const { secret, ...definitionChange } = change as { secret?: unknown; headers?: unknown };
    const bad = {
      ...record('a'),
      definition: { ...record('a').definition, ...definitionChange },
      ...(secret === undefined ? {} : { secret }),
    };
    const parsed = parseSubscriberRecord('a', Buffer.from(JSON.stringify(bad)));
    expect(parsed).toMatchObject({
      ok: false,
      error: expect.stringContaining(`${field}: may name only a variable`),
    });
  });

  it('reads version 1 records, which have no managed headers', () => {
    const v1 = record('a', { version: 1 });
    expect(parseSubscriberRecord('a', Buffer.from(JSON.stringify(v1)))).toEqual({ ok: true, value: v1 });
    const managed = { ...v1, definition: { ...v1.definition, headers: { 'X-Key': { managed: true } } } };
    expect(parseSubscriberRecord('a', Buffer.from(JSON.stringify(managed)))).toMatchObject({
      ok: false,
      error: expect.stringContaining('a version 1 record has no managed headers'),
    });
  });

  it('refuses an unknown state', () => {
    const bad = { ...record('a'), state: { kind: 'sleeping' } };
    expect(parseSubscriberRecord('a', Buffer.from(JSON.stringify(bad))).ok).toBe(false);
  });
});
