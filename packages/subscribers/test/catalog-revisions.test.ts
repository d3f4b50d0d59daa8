import { describe, expect, it } from 'vitest';
import { foldRegistry, type RawRegistryRecord } from '../src/catalog-records.ts';
import { IF_REVISION_HEADER, RESTATES_HEADER } from '../src/catalog-revisions.ts';
import { record } from './fixtures.ts';

/** A record of `a` at offset `at`: a version named by its updatedAt day, or a tombstone. */
function at(offset: number, day: number | null, ifRevision?: string, restates = false): RawRegistryRecord {
  return {
    key: 'a',
    value:
      day === null
        ? null
        : Buffer.from(
            JSON.stringify(
              record('a', { updatedAt: `2026-05-${String(day).padStart(2, '0')}T00:00:00.000Z` }),
            ),
          ),
    offset: `0:${offset}`,
    logOffset: String(offset),
    headers: {
      ...(ifRevision === undefined ? {} : { [IF_REVISION_HEADER]: ifRevision }),
      ...(restates ? { [RESTATES_HEADER]: 'true' } : {}),
    },
  };
}

/** What the fold ends with for `a`: its version's day (null: none), revision, lost offsets, problems. */
function folded(records: RawRegistryRecord[]) {
  const snap = foldRegistry(records);
  const updated = snap.subscribers.get('a')?.updatedAt;
  return {
    day: updated === undefined ? null : Number(updated.slice(8, 10)),
    revision: snap.revisions.get('a') ?? null,
    lost: snap.lost.map((l) => l.offset),
    problems: snap.problems.map((p) => p.error),
  };
}

describe('the revision rule of the catalog fold', () => {
  const cases: [string, RawRegistryRecord[], ReturnType<typeof folded>][] = [
    [
      'an unconditional record sets its offset as the revision',
      [at(3, 1)],
      { day: 1, revision: '3', lost: [], problems: [] },
    ],
    [
      'unconditional records always apply, the latest wins (as before revisions)',
      [at(3, 1), at(4, 2), at(7, 3)],
      { day: 3, revision: '7', lost: [], problems: [] },
    ],
    [
      'a conditional record that names the revision in effect applies',
      [at(3, 1), at(4, 2, '3')],
      { day: 2, revision: '4', lost: [], problems: [] },
    ],
    [
      'a stale one is ignored: a lost race, not a problem',
      [at(3, 1), at(4, 2), at(5, 3, '3')],
      { day: 2, revision: '4', lost: ['5'], problems: [] },
    ],
    [
      'of two writers naming the same revision, the first in the log wins',
      [at(3, 1), at(4, 2, '3'), at(5, 3, '3')],
      { day: 2, revision: '4', lost: ['5'], problems: [] },
    ],
    [
      'a conditional write on the winner revision then applies (order is the log order)',
      [at(3, 1), at(4, 2, '3'), at(5, 3, '3'), at(6, 4, '4')],
      { day: 4, revision: '6', lost: ['5'], problems: [] },
    ],
    [
      'after a tombstone, one naming the deleted revision is ignored',
      [at(3, 1), at(4, null), at(5, 2, '3')],
      { day: null, revision: null, lost: ['5'], problems: [] },
    ],
    [
      'after a tombstone, a create-only (absent) record applies',
      [at(3, 1), at(4, null), at(5, 2, 'absent')],
      { day: 2, revision: '5', lost: [], problems: [] },
    ],
    [
      'absent on a name never seen applies',
      [at(5, 2, 'absent')],
      { day: 2, revision: '5', lost: [], problems: [] },
    ],
    [
      'absent while a record is in effect is ignored',
      [at(3, 1), at(5, 2, 'absent')],
      { day: 1, revision: '3', lost: ['5'], problems: [] },
    ],
    [
      'a conditional tombstone naming the revision deletes',
      [at(3, 1), at(4, null, '3')],
      { day: null, revision: null, lost: [], problems: [] },
    ],
    [
      'a stale conditional tombstone is ignored',
      [at(3, 1), at(4, 2), at(5, null, '3')],
      { day: 2, revision: '4', lost: ['5'], problems: [] },
    ],
    [
      'an expected record compacted away (nothing of the key left) still applies: no subscriber lost',
      [at(9, 3, '4')],
      { day: 3, revision: '9', lost: [], problems: [] },
    ],
    [
      'a restatement keeps the revision in effect (the winner ETag stays valid)',
      [at(3, 1), at(4, 2, '3'), at(5, 3, '3'), at(6, 2, '4', true)],
      { day: 2, revision: '4', lost: ['5'], problems: [] },
    ],
    [
      'after compaction the restatement alone still says the winner revision',
      [at(6, 2, '4', true)],
      { day: 2, revision: '4', lost: [], problems: [] },
    ],
    [
      'a restated tombstone keeps the subscriber deleted',
      [at(3, 1), at(4, null, '3'), at(5, 2, '3'), at(6, null, 'absent', true)],
      { day: null, revision: null, lost: ['5'], problems: [] },
    ],
    [
      'an expected revision that is not an earlier offset is a problem; the last good record stands',
      [at(3, 1), at(4, 2, '4'), at(5, 2, 'x')],
      {
        day: 1,
        revision: '3',
        lost: [],
        problems: ['hookstream-if-revision "x" is not an earlier offset'],
      },
    ],
  ];
  it.each(cases)('%s', (_name, records, expected) => {
    expect(folded(records)).toEqual(expected);
  });

  it('a hand-built record without an offset applies but sets no revision; a conditional one is a problem', () => {
    const plain = { key: 'a', value: Buffer.from(JSON.stringify(record('a'))) };
    expect(folded([plain])).toMatchObject({ day: 1, revision: null });
    expect(folded([{ ...plain, headers: { [IF_REVISION_HEADER]: 'absent' } }]).problems).toEqual([
      'a conditional record without an offset',
    ]);
  });

  it('lost writes name what they expected and what they found', () => {
    const snap = foldRegistry([at(3, 1), at(4, 2), at(5, 3, '3')]);
    expect(snap.lost).toEqual([{ key: 'a', offset: '5', expected: '3', found: '4' }]);
  });
});
