import { describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.ts';

// The first call imports the command's module graph: about 1 s idle, several on a busy machine.
describe('hookstream ingress (argument handling)', { timeout: 30_000 }, () => {
  it('prints its usage for --help', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await main(['ingress', '--help'])).toBe(0);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain(
      'Usage: hookstream ingress [--port <port>]',
    );
    write.mockRestore();
  });

  it('exits 1 naming --port when it is not a port', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['ingress', '--port', '70000'])).toBe(1);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain(
      "--port: expected a port number, got '70000'",
    );
    write.mockRestore();
  });
});
