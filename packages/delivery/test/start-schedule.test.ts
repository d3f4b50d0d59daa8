import { describe, expect, it } from 'vitest';
import { StartSchedule } from '../src/start-schedule.ts';

describe('StartSchedule', () => {
  it('lets the first start go at once, then spaces starts by the gap less the tolerance', () => {
    const s = new StartSchedule(10, 2);
    expect(s.waitMs(0)).toBe(0);
    s.started(0);
    expect(s.waitMs(0)).toBe(8);
    expect(s.waitMs(8)).toBe(0);
  });

  it('does not carry a start that was late by up to the tolerance into the next gap', () => {
    const s = new StartSchedule(10, 2);
    s.started(0);
    // Woken at 8 (due 10 less 2), the timer fired 1.5 ms late: the next is still due at 20.
    s.started(9.5);
    expect(s.waitMs(9.5)).toBe(8.5);
    s.started(18);
    // After k starts the schedule is k gaps long, whatever the lateness within the tolerance.
    expect(s.waitMs(18)).toBe(10);
  });

  it('restarts from a start later than due, so idle time is not saved up as a burst', () => {
    const s = new StartSchedule(10, 2);
    s.started(0);
    s.started(500);
    expect(s.waitMs(500)).toBe(8);
    expect(s.waitMs(505)).toBe(3);
  });

  it('never lets the k-th start come earlier than k gaps after the first, less the tolerance', () => {
    const s = new StartSchedule(10.1, 2);
    let now = 0;
    const starts: number[] = [];
    for (let k = 0; k < 100; k++) {
      now += s.waitMs(now);
      starts.push(now);
      s.started(now);
    }
    for (const [k, at] of starts.entries()) expect(at).toBeGreaterThanOrEqual(k * 10.1 - 2 - 1e-9);
    expect((starts.at(-1) ?? 0) - (starts[0] ?? 0)).toBeLessThanOrEqual(99 * 10.1);
  });

  it('refuses a tolerance larger than the gap', () => {
    expect(() => new StartSchedule(1, 2)).toThrow(RangeError);
  });
});
