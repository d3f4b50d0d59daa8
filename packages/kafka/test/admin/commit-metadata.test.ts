import { describe, expect, it } from 'vitest';
import {
  type CommitFacts,
  decodeCommitMetadata,
  encodeCommitMetadata,
  REWINDER_MAX_CHARS,
  rewinderName,
} from '../../src/admin/commit-metadata.ts';

const AT = Date.parse('2026-12-04T10:00:00.000Z');
const SINCE = AT - 5000;
const REWOUND_AT = AT - 3_600_000;
const rewind = { untilOffset: 1234, atMs: REWOUND_AT, by: 'alice' };
const none: CommitFacts = { committedAtMs: null, openSinceMs: null, rewind: null };

describe('the commit metadata codec', () => {
  it.each<[string, Parameters<typeof encodeCommitMetadata>[1], string]>([
    ['a plain commit', {}, 'committedAt=2026-12-04T10:00:00.000Z'],
    [
      "the pusher's commit",
      { openSinceMs: SINCE },
      'committedAt=2026-12-04T10:00:00.000Z;openSince=2026-12-04T09:59:55.000Z',
    ],
    [
      "a rewind's commit (no openSince: a new chain)",
      { rewind },
      'committedAt=2026-12-04T10:00:00.000Z;rewoundUntil=1234;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=alice',
    ],
    [
      "the pusher's commit in a rewound range",
      { openSinceMs: SINCE, rewind },
      'committedAt=2026-12-04T10:00:00.000Z;openSince=2026-12-04T09:59:55.000Z;rewoundUntil=1234;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=alice',
    ],
    ['null facts as absent', { openSinceMs: null, rewind: null }, 'committedAt=2026-12-04T10:00:00.000Z'],
  ])('writes %s, and reads it back', (_, facts, text) => {
    expect(encodeCommitMetadata(AT, facts)).toBe(text);
    expect(decodeCommitMetadata(text)).toEqual({
      committedAtMs: AT,
      openSinceMs: facts?.openSinceMs ?? null,
      rewind: facts?.rewind ?? null,
    });
  });

  it.each<[string, string | null | undefined, CommitFacts]>([
    ['none (null)', null, none],
    ['none (undefined)', undefined, none],
    ['empty', '', none],
    // What pushers before the mark wrote reads as before.
    ['the oldest form', 'committedAt=2026-12-04T10:00:00.000Z', { ...none, committedAtMs: AT }],
    [
      'the form with openSince',
      'committedAt=2026-12-04T10:00:00.000Z;openSince=2026-12-04T09:59:55.000Z',
      { ...none, committedAtMs: AT, openSinceMs: SINCE },
    ],
    // Another client's metadata, or garbage: nothing is read from it, and nothing fails.
    ['another writer', 'written by someone else', none],
    [
      'an unparsable time',
      'committedAt=2026-12-04T10:00:00.000Z;openSince=never',
      { ...none, committedAtMs: AT },
    ],
    ['no key', '=x;;=;', none],
    [
      'unknown keys among known ones',
      'v=2;committedAt=2026-12-04T10:00:00.000Z;colour=blue',
      { ...none, committedAtMs: AT },
    ],
    // A partial mark says nothing a reader could act on.
    [
      'a mark without its author',
      'committedAt=2026-12-04T10:00:00.000Z;rewoundUntil=5;rewoundAt=2026-12-04T09:00:00.000Z',
      { ...none, committedAtMs: AT },
    ],
    [
      'a mark with an offset that is not one',
      'rewoundUntil=-5;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=alice',
      none,
    ],
    [
      'a mark with an offset past 2^53',
      'rewoundUntil=99999999999999999;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=alice',
      none,
    ],
    ['a mark with an empty author', 'rewoundUntil=5;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=', none],
    [
      'a repeated key: the first counts',
      'rewoundUntil=5;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=alice;rewoundBy=mallory;rewoundUntil=9',
      { ...none, rewind: { untilOffset: 5, atMs: REWOUND_AT, by: 'alice' } },
    ],
    [
      'an author with "="',
      'rewoundUntil=5;rewoundAt=2026-12-04T09:00:00.000Z;rewoundBy=a=b',
      { ...none, rewind: { untilOffset: 5, atMs: REWOUND_AT, by: 'a=b' } },
    ],
    ['too long to be ours', `committedAt=2026-12-04T10:00:00.000Z;x=${'y'.repeat(2000)}`, none],
    ['a time too long to be one', `committedAt=2026-12-04T10:00:00.000Z${' '.repeat(40)}`, none],
  ])('reads %s', (_, text, facts) => {
    expect(decodeCommitMetadata(text)).toEqual(facts);
  });

  it('bounds who rewound: no ";" or control characters, at most REWINDER_MAX_CHARS, never empty', () => {
    expect(rewinderName('token:ops-1')).toBe('token:ops-1');
    expect(rewinderName('a;b\nc\u0000d')).toBe('a_b_c_d');
    expect(rewinderName('')).toBe('unknown');
    // Cut by code points, never inside a surrogate pair.
    const long = '😀'.repeat(REWINDER_MAX_CHARS + 50);
    expect(Array.from(rewinderName(long))).toHaveLength(REWINDER_MAX_CHARS);
    expect(rewinderName(long).isWellFormed()).toBe(true);
  });

  it("stays well under Kafka's default offset.metadata.max.bytes (4096), whoever rewound", () => {
    const by = `${'é😀;'.repeat(5000)}`;
    const text = encodeCommitMetadata(AT, {
      openSinceMs: SINCE,
      rewind: { untilOffset: Number.MAX_SAFE_INTEGER, atMs: REWOUND_AT, by },
    });
    expect(Buffer.byteLength(text, 'utf8')).toBeLessThan(600);
    const read = decodeCommitMetadata(text).rewind;
    expect(read?.untilOffset).toBe(Number.MAX_SAFE_INTEGER);
    expect(read?.by).toBe(rewinderName(by));
    expect(read?.by).not.toContain(';');
  });
});
