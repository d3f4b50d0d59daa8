import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeProfile } from '../src/profile-summary.ts';

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });

// root → main → { send (undici) → writev, recurse → recurse }, and (idle) under root.
const PROFILE = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6] },
    { id: 2, callFrame: frame('main', 'file:///x/packages/pusher-core/src/a.ts', 9), children: [3, 5] },
    { id: 3, callFrame: frame('send', 'file:///x/node_modules/undici/lib/client.js', 1), children: [4] },
    { id: 4, callFrame: frame('writev', '') },
    { id: 5, callFrame: frame('recurse', 'node:internal/timers', 4), children: [7] },
    { id: 6, callFrame: frame('(idle)', '') },
    { id: 7, callFrame: frame('recurse', 'node:internal/timers', 4) },
  ],
  samples: [4, 4, 3, 2, 7, 6, 6, 6, 6, 6],
  startTime: 0,
  // A sample a second.
  timeDeltas: Array.from({ length: 10 }, () => 1e6),
};

describe('summarizeProfile', () => {
  it('sums self time by package and function, and inclusive time once per sample', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'profile-')), 'p.cpuprofile');
    await writeFile(file, JSON.stringify(PROFILE));
    const s = await summarizeProfile(file, 10);
    expect(s.samples).toBe(10);
    expect(s.idle).toBe(0.5);
    expect(s.packages).toEqual([
      { name: '(idle)', share: 0.5 },
      { name: 'writev', share: 0.2 },
      { name: 'undici', share: 0.1 },
      { name: 'packages/pusher-core', share: 0.1 },
      { name: 'node:internal/timers', share: 0.1 },
    ]);
    const inclusive = new Map(s.inclusive.map((r) => [r.name, r.share]));
    expect(inclusive.get('main packages/pusher-core/src/a.ts:10')).toBe(0.5);
    expect(inclusive.get('send node_modules/undici/lib/client.js:2')).toBe(0.3);
    // The recursion's two frames are one function: counted once for its one sample.
    expect(inclusive.get('recurse node:internal/timers:5')).toBe(0.1);
    expect(inclusive.has('(root)')).toBe(false);
    expect(s.seconds).toBe(10);
  });

  it('counts only the samples in a window of seconds from the start', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'profile-')), 'p.cpuprofile');
    await writeFile(file, JSON.stringify(PROFILE));
    // Samples at 1 s … 10 s: [3, 6) holds the third to the fifth (send, main, recurse).
    const s = await summarizeProfile(file, 10, { fromS: 3, toS: 6 });
    expect(s.samples).toBe(3);
    expect(s.idle).toBe(0);
    expect(
      new Map(s.self.map((r) => [r.name, r.share])).get('send node_modules/undici/lib/client.js:2'),
    ).toBeCloseTo(1 / 3);
  });
});
