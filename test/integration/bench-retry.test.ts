import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

// The benchmark is not a test: this only checks that it runs end to end on a tiny load.
describe('hookstream bench retry', () => {
  it('measures lateness per tier on a tiny load, and no retry starts before it is due', async () => {
    const args = ['bench', 'retry', '--records', '20', '--tiers', '300,600', '--json'];
    const result = await runCli(args, process.env, 120_000);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { tiers: { tier: number; records: number; minMs: number }[] };
    expect(report.tiers.map((t) => [t.tier, t.records])).toEqual([
      [1, 20],
      [2, 20],
    ]);
    for (const t of report.tiers) expect(t.minMs).toBeGreaterThanOrEqual(0);
  }, 150_000);

  it('refuses a bad option with its usage', async () => {
    const result = await runCli(['bench', 'retry', '--jitter', '3'], process.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--jitter must be between 0 and 1');
  });
});
