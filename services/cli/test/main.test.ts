import { describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.ts';

describe('hookstream command line', () => {
  it('prints usage and exits 2 for an unknown command', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['frobnicate'])).toBe(2);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain("unknown command 'frobnicate'");
    write.mockRestore();
  });

  it('prints the stack usage and exits 2 for an unknown stack action', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['stack', 'sideways'])).toBe(2);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain(
      'Usage: hookstream stack <up|down|status>',
    );
    write.mockRestore();
  });
});
