import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

// The benchmark is not a test: this only checks that it runs end to end on a tiny load.
describe('hookstream bench e2e', () => {
  it('runs both loads on a tiny load and delivers every paced event', async () => {
    const args = ['bench', 'e2e', '--events', '200', '--rate', '50', '--seconds', '2', '--json'];
    const result = await runCli(args, process.env, 120_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      maxLoad: { events: number; delivered: number };
      halfLoad: { targetPerSecond: number; events: number; delivered: number; latency: { count: number } };
    };
    expect(report.maxLoad).toMatchObject({ events: 200, delivered: 200 });
    expect(report.halfLoad).toMatchObject({ targetPerSecond: 50, events: 100, delivered: 100 });
    expect(report.halfLoad.latency.count).toBe(100);
  }, 150_000);

  it('refuses a bad option with its usage', async () => {
    const result = await runCli(['bench', 'e2e', '--rate', '0'], process.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--rate must be 0..100000 events/s');
    expect(result.stderr).toContain('Usage: hookstream bench e2e');
  });
});
