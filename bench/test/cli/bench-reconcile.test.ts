import { describe, expect, it, vi } from 'vitest';
import { benchCommand } from '../../src/cli/bench-command.ts';

describe('hookstream bench reconcile (argument handling)', () => {
  it('prints its usage for --help and refuses a window or partition count out of bounds, exit 2', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await benchCommand(['reconcile', '--help'])).toBe(0);
      expect(out.mock.calls.map((c) => String(c[0])).join('')).toContain('Usage: hookstream bench reconcile');
      expect(await benchCommand(['reconcile', '--events', '5'])).toBe(2);
      expect(await benchCommand(['reconcile', '--events', '1e9'])).toBe(2);
      expect(await benchCommand(['reconcile', '--partitions', '0'])).toBe(2);
      const said = err.mock.calls.map((c) => String(c[0])).join('');
      expect(said).toContain('--events must be 10000..10000000');
      expect(said).toContain('--partitions must be 1..64');
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});
