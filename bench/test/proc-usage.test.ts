import { describe, expect, it } from 'vitest';
import { threadCpu } from '../src/proc-usage.ts';

describe('threadCpu', () => {
  it('counts CPU spent on the main thread as the main thread’s user time', () => {
    const before = threadCpu();
    expect(before).not.toBeNull();
    // Burn 300 ms of this thread's CPU (by process.cpuUsage, not the clock).
    const start = process.cpuUsage();
    let x = 0;
    while (process.cpuUsage(start).user < 300_000) x += Math.sqrt(x + 1);
    const after = threadCpu();
    const main = (after?.mainUserMicros ?? 0) - (before?.mainUserMicros ?? 0);
    // /proc counts in 10 ms ticks; the main thread did nearly all of it.
    expect(main).toBeGreaterThanOrEqual(250_000);
    expect(main).toBeLessThan(1_000_000);
    expect(x).toBeGreaterThan(0);
  });
});
