import { describe, expect, it } from 'vitest';
import { namesStartingWith } from '../src/pusher-resources.ts';

describe('namesStartingWith', () => {
  const sorted = [
    'events',
    'hookstream.sub.a.dlq',
    'hookstream.sub.a.retry.1',
    'hookstream.sub.ab.dlq',
    'hookstream.sub.b.retry.1',
    'hookstream.sub.b.retry.2',
    'hookstream.sub.b0',
  ].sort();

  it('finds exactly the names with the prefix, in order, wherever they sit', () => {
    expect(namesStartingWith(sorted, 'hookstream.sub.a.')).toEqual([
      'hookstream.sub.a.dlq',
      'hookstream.sub.a.retry.1',
    ]);
    expect(namesStartingWith(sorted, 'hookstream.sub.b.')).toEqual([
      'hookstream.sub.b.retry.1',
      'hookstream.sub.b.retry.2',
    ]);
    expect(namesStartingWith(sorted, 'events')).toEqual(['events']);
    expect(namesStartingWith(sorted, 'hookstream.sub.c.')).toEqual([]);
    expect(namesStartingWith([], 'x')).toEqual([]);
  });

  it('agrees with a scan of the whole listing', () => {
    const names = Array.from({ length: 500 }, (_, i) => `hookstream.sub.s${i % 97}.retry.${i % 5}`).sort();
    for (const prefix of ['hookstream.sub.s1.', 'hookstream.sub.s96.', 'hookstream.sub.s', 'zzz', ''])
      expect(namesStartingWith(names, prefix)).toEqual(names.filter((n) => n.startsWith(prefix)));
  });
});
