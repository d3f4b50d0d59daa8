import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isOurProcess, isPortOpen, stopProcess } from '../src/processes.ts';

function spawnSleeper(marker: string) {
  // The marker travels in the command line, as the stack's config paths do.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', marker], { stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('spawn failed');
  return { pid: child.pid, startedAt: new Date().toISOString(), marker };
}

/**
 * A Node child running `script` with `marker` on its command line; resolves with its process record
 * and the first line it prints (it prints once it is ready: a fixed wait fails on a busy machine).
 */
async function spawnAnnouncing(script: string, marker: string) {
  const child = spawn(process.execPath, ['-e', script, marker], { stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((ok) => child.stdout?.once('data', (d) => ok(String(d).trim())));
  return { record: { pid: child.pid ?? -1, startedAt: '', marker }, line };
}

// Real child processes: their start-up is not held to vitest's default 5 s on a loaded machine.
describe('process bookkeeping', { timeout: 60_000 }, () => {
  it('recognises its own process by the marker and never a stranger with the same pid', async () => {
    const record = spawnSleeper('/tmp/hookstream-marker-a');
    expect(await isOurProcess(record)).toBe(true);
    expect(await isOurProcess({ ...record, marker: '/tmp/some-other-stack' })).toBe(false);
    expect(await stopProcess(record, 5000)).toBe('stopped');
    expect(await isOurProcess(record)).toBe(false);
    expect(await stopProcess(record, 5000)).toBe('gone');
  });

  it('recognises a process that rewrote its command line by its working directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookstream-cwd-'));
    const child = spawn(process.execPath, ['-e', "process.title = 'renamed'; setInterval(() => {}, 1000)"], {
      cwd: dir,
      stdio: 'ignore',
    });
    const record = { pid: child.pid ?? -1, startedAt: '', marker: dir };
    expect(await isOurProcess(record)).toBe(true);
    expect(await isOurProcess({ ...record, marker: join(tmpdir(), 'another-stack') })).toBe(false);
    expect(await stopProcess(record, 5000)).toBe('stopped');
    await rm(dir, { recursive: true, force: true });
  });

  it('kills a process that ignores SIGTERM once the grace period is over', async () => {
    // The child says when its SIGTERM handler is installed.
    const { record } = await spawnAnnouncing(
      "process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)",
      '/tmp/hookstream-marker-b',
    );
    expect(await stopProcess(record, 300)).toBe('killed');
  });

  it('tells an open port from a closed one', async () => {
    const server = createServer();
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    expect(await isPortOpen('127.0.0.1', port)).toBe(true);
    await new Promise((ok) => server.close(ok));
    expect(await isPortOpen('127.0.0.1', port)).toBe(false);
  });

  it('returns from a stop only once the process has let go of its listening port', async () => {
    // A Node server's leader shows as a zombie while its other threads still hold the socket:
    // a stop that returned then left the port taken for the next start (most of 40 tries).
    for (let i = 0; i < 10; i++) {
      const { record, line } = await spawnAnnouncing(
        "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'))",
        `/tmp/hookstream-marker-port-${i}`,
      );
      const port = Number(line);
      expect(await isPortOpen('127.0.0.1', port)).toBe(true);
      expect(await stopProcess(record, 5000)).toBe('stopped');
      expect(await isPortOpen('127.0.0.1', port)).toBe(false);
    }
  });
});
