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
    const marker = '/tmp/hookstream-marker-b';
    const child = spawn(
      process.execPath,
      [
        '-e',
        "process.on('SIGTERM', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000)",
        marker,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const record = { pid: child.pid ?? -1, startedAt: '', marker };
    // The child says when its SIGTERM handler is installed (a fixed wait fails on a busy machine).
    await new Promise((ok) => child.stdout?.once('data', ok));
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
      const marker = `/tmp/hookstream-marker-port-${i}`;
      const child = spawn(
        process.execPath,
        [
          '-e',
          "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'))",
          marker,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      const port = Number(
        await new Promise<string>((ok) => child.stdout?.once('data', (d) => ok(String(d)))),
      );
      expect(await isPortOpen('127.0.0.1', port)).toBe(true);
      expect(await stopProcess({ pid: child.pid ?? -1, startedAt: '', marker }, 5000)).toBe('stopped');
      expect(await isPortOpen('127.0.0.1', port)).toBe(false);
    }
  });
});
