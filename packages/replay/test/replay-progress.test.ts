import { describe, expect, it } from 'vitest';
import { ReplayProgress } from '../src/index.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('ReplayProgress', () => {
  it('redraws one bar in place on a terminal and ends the line when done', () => {
    let now = 0;
    const s = stream(true);
    const progress = new ReplayProgress(s, { now: () => now });
    now = 1000;
    progress.update(50, 200);
    now = 2000;
    progress.update(200, 200);
    expect(s.written[0]).toBe(`\r[${'#'.repeat(8)}${'.'.repeat(22)}] 50/200 25% 50/s`);
    expect(s.written[1]).toBe(`\r[${'#'.repeat(30)}] 200/200 100% 100/s`);
    expect(s.written[2]).toBe('\n');
    expect(s.written.join('')).not.toMatch(/\n.*\r/);
  });

  it('writes a plain line per tenth reached, and the last one, elsewhere', () => {
    const s = stream(false);
    const progress = new ReplayProgress(s);
    for (let done = 100; done <= 1000; done += 50) progress.update(done, 1000);
    expect(s.written).toHaveLength(10);
    expect(s.written[0]).toBe('replayed 100/1000 (10%)\n');
    expect(s.written.at(-1)).toBe('replayed 1000/1000 (100%)\n');
    expect(s.written.join('')).not.toContain('\r');
  });

  it('reports a small replay done in one chunk with one line', () => {
    const s = stream(false);
    new ReplayProgress(s).update(3, 3);
    expect(s.written).toEqual(['replayed 3/3 (100%)\n']);
  });

  it('ignores an empty replay', () => {
    const s = stream(true);
    new ReplayProgress(s).update(0, 0);
    expect(s.written).toEqual([]);
  });
});
