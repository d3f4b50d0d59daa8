import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(import.meta.dirname, '../bin/hookstream.js');

/** Runs `hookstream receiver` until it says where it listens, then stops it. */
async function listeningLine(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'receiver', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let out = '';
    while (!out.includes('\n')) out += String((await once(child.stdout, 'data'))[0]);
    const url = /listening on (\S+)/.exec(out)?.[1] ?? '';
    // Reachable on loopback either way, and healthy.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    return out;
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}

// Each case starts the command as a child process (3 s for the pair on an idle machine): not
// held to vitest's default 5 s while both cores are busy.
describe('hookstream receiver --host', { timeout: 60_000 }, () => {
  it('binds 127.0.0.1 by default', async () => {
    expect(await listeningLine([], { HOOKSTREAM_RECEIVER_HOST: '' })).not.toContain('bound to');
  });

  it('binds the address of --host, or of HOOKSTREAM_RECEIVER_HOST (a container listens on 0.0.0.0)', async () => {
    expect(await listeningLine(['--host', '0.0.0.0'], {})).toContain('(bound to 0.0.0.0)');
    expect(await listeningLine([], { HOOKSTREAM_RECEIVER_HOST: '0.0.0.0' })).toContain('(bound to 0.0.0.0)');
  });
});
