import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

// The benchmark is not a test: this only checks that it runs end to end on a tiny load.
describe('hookstream bench limiter', () => {
  it('delivers a tiny backlog at the rate and reports the busiest second and the share used', async () => {
    const args = ['bench', 'limiter', '--rate', '20', '--events', '40', '--json'];
    const result = await runCli(args, process.env, 120_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      received: number;
      maxInAnySecond: number;
      usedPercent: number;
      gaps: { medianMs: number };
    };
    expect(report.received).toBeGreaterThanOrEqual(40);
    expect(report.maxInAnySecond).toBeLessThanOrEqual(20);
    expect(report.usedPercent).toBeGreaterThan(0);
    expect(report.gaps.medianMs).toBeGreaterThan(0);
  }, 150_000);

  it('refuses a bad option with its usage', async () => {
    const result = await runCli(['bench', 'limiter', '--instances', '3'], process.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--instances must be 1 or 2');
  });
});
