import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../src/main.ts';

// Each command's first call imports its module graph (the stack, kafkajs, the pusher), which can
// take more than vitest's default 5 s while the machine's two cores run other suites.
describe('hookstream command line', { timeout: 30_000 }, () => {
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

  it('refuses push without a definition file, with its usage, exit 2', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['push'])).toBe(2);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain('Usage: hookstream push --config');
    write.mockRestore();
  });

  it('names the field at fault when a definition is wrong, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-cli-'));
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ name: 'x', url: 'https://x.example/', rate: { perSecond: -1 } }));
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['push', '--config', file])).toBe(1);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toMatch(/BAD_DEFINITION: .*rate\.perSecond: /);
    write.mockRestore();
  });

  it('refuses a session timeout outside what the broker accepts, naming the option, exit 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-cli-'));
    const file = join(dir, 'ok.json');
    await writeFile(file, JSON.stringify({ name: 'x', url: 'https://x.example/' }));
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    for (const bad of ['500', '10s', '300001'])
      expect(await main(['push', '--config', file, '--session-timeout', bad])).toBe(2);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain(
      "--session-timeout (or HOOKSTREAM_SESSION_TIMEOUT_MS): expected milliseconds from 6000 to 300000, got '10s'",
    );
    write.mockRestore();
  });

  it('names both benchmarks for an unknown one', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['bench', 'sideways'])).toBe(2);
    expect(write.mock.calls.map((c) => String(c[0])).join('')).toContain('hookstream bench push');
    write.mockRestore();
  });

  it('refuses an unknown dlq action, and dlq without --subscriber, exit 2', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['dlq', 'sideways'])).toBe(2);
    expect(await main(['dlq', 'list'])).toBe(2);
    const said = write.mock.calls.map((c) => String(c[0])).join('');
    expect(said).toContain("unknown action 'sideways'");
    expect(said).toContain('--subscriber <name> is required');
    write.mockRestore();
  });

  it('refuses ledger without an event id, naming it, exit 2', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['ledger'])).toBe(2);
    expect(await main(['ledger', 'evt_1', '--since', 'soon'])).toBe(2);
    const said = write.mock.calls.map((c) => String(c[0])).join('');
    expect(said).toContain('<event-id> is required');
    expect(said).toContain('--since');
    write.mockRestore();
  });

  it('refuses reconcile without --from, with a bad or empty window, type or subscriber, naming each, exit 2', async () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await main(['reconcile'])).toBe(2);
    expect(await main(['reconcile', '--from', 'yesterday'])).toBe(2);
    expect(await main(['reconcile', '--from', '1h', '--to', '2h'])).toBe(2);
    expect(await main(['reconcile', '--from', '400d'])).toBe(2);
    expect(await main(['reconcile', '--from', '1h', '--type', 'Not A Type'])).toBe(2);
    expect(await main(['reconcile', '--from', '1h', '--subscriber', 'Bad Name'])).toBe(2);
    const said = write.mock.calls.map((c) => String(c[0])).join('');
    expect(said).toContain('--from <time|age> is required');
    expect(said).toContain("--from: 'yesterday'");
    expect(said).toContain('--to must be later than --from');
    expect(said).toContain('at most 366 days apart');
    expect(said).toContain("--type: 'Not A Type'");
    expect(said).toContain("--subscriber: 'Bad Name'");
    write.mockRestore();
  });
});
