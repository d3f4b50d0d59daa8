import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

// The benchmark is not a test: this only checks that it runs end to end on a tiny load.
describe('hookstream bench ingress', () => {
  it('runs on a tiny load and reports every run as JSON', async () => {
    const result = await runCli(['bench', 'ingress', '--events', '100', '--json'], process.env, 120_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      rows: { events: number; errors: number; eventsPerSecond: number }[];
      raw: { events: number };
      singleRatio: number;
    };
    expect(report.rows).toHaveLength(5);
    for (const row of report.rows) expect([row.events, row.errors]).toEqual([100, 0]);
    expect(report.raw.events).toBe(100);
    expect(report.singleRatio).toBeGreaterThan(0);
  }, 150_000);

  it('refuses an unknown target with its usage', async () => {
    const result = await runCli(['bench', 'pusher'], process.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: hookstream bench ingress');
  });
});
