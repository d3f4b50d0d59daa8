import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.ts';

/** Runs `hookstream api <args>` with these variables; returns the exit code and what it wrote. */
async function run(args: string[], env: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const code = await main(['api', ...args]);
  const text = (spy: typeof out) => spy.mock.calls.map((c) => String(c[0])).join('');
  const result = { code, stdout: text(out), stderr: text(err) };
  out.mockRestore();
  err.mockRestore();
  return result;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

const TOKENS = { HOOKSTREAM_API_TOKENS: 'operator-token-0123456789=*' };

// The first call imports the command's module graph: about 1 s idle, several on a busy machine.
describe('hookstream api (settings)', { timeout: 30_000 }, () => {
  it('prints its usage for --help', async () => {
    const r = await run(['--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: hookstream api [--port <n>]');
  });

  it('fails fast naming the field: a bad port, a bad rate, no token, a token of neither form', async () => {
    expect((await run(['--port', '70000'], TOKENS)).stderr).toContain('--port');
    expect((await run(['--rate', '0'], TOKENS)).stderr).toContain('--rate / HOOKSTREAM_API_RATE');
    const none = await run([], { HOOKSTREAM_API_TOKENS: '', HOOKSTREAM_API_TOKENS_FILE: '' });
    expect([none.code, none.stderr]).toEqual([1, expect.stringContaining('no API token')]);
    const bare = await run([], { HOOKSTREAM_API_TOKENS: 'operator-token-0123456789' });
    expect(bare.stderr).toContain('token entry 1: write token=* (the operator) or token@tenant');
    expect(bare.stderr).not.toContain('operator-token-0123456789');
    const file = await run([], { HOOKSTREAM_API_TOKENS_FILE: '/nonexistent/tokens' });
    expect(file.stderr).toContain('HOOKSTREAM_API_TOKENS_FILE: cannot read /nonexistent/tokens');
  });

  it('refuses a session timeout below the broker minimum (6 s) or above 5 min, flag or variable', async () => {
    const short = await run(['--session-timeout', '5999'], TOKENS);
    expect([short.code, short.stderr]).toEqual([
      1,
      expect.stringContaining('--session-timeout / HOOKSTREAM_SESSION_TIMEOUT_MS'),
    ]);
    const long = await run([], { ...TOKENS, HOOKSTREAM_SESSION_TIMEOUT_MS: '300001' });
    expect(long.stderr).toContain('--session-timeout / HOOKSTREAM_SESSION_TIMEOUT_MS');
    expect((await run(['--session-timeout', 'soon'], TOKENS)).stderr).toContain('--session-timeout');
  });
});
