import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Writes a subscriber definition file for `hookstream push --config`, as an operator would;
 * loopback receivers need allowPrivateNetwork, which the caller states explicitly.
 */
export async function writeSubscriberFile(definition: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-subscriber-'));
  const path = join(dir, 'subscriber.json');
  await writeFile(path, JSON.stringify(definition));
  return path;
}
