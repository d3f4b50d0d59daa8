import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StackError } from './errors.ts';
import { processStartTime } from './processes.ts';
import type { Reporter } from './progress.ts';

interface LockOwner {
  readonly pid: number;
  readonly start: string | null;
  readonly what: string;
}

const POLL_MS = 100;
const OWNERLESS_MS = 5000;

/**
 * Runs `work` while holding the state folder's lock, so two checkouts never start the same
 * server twice, and a holder never leaves while another joins. The lock is a folder (mkdir is
 * atomic) naming its owner; a lock whose owner died is broken.
 */
export async function withStackLock<T>(
  stateDir: string,
  what: string,
  work: () => Promise<T>,
  options: { readonly report: Reporter; readonly timeoutMs: number },
): Promise<T> {
  const dir = join(stateDir, 'lock');
  await mkdir(stateDir, { recursive: true });
  const deadline = Date.now() + options.timeoutMs;
  let told = false;
  let ownerlessSince: number | undefined;
  for (;;) {
    try {
      await mkdir(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = await readOwner(dir);
    if (owner === undefined) ownerlessSince ??= Date.now();
    else ownerlessSince = undefined;
    // A lock without an owner for seconds was left by a process that died right after mkdir.
    const ownerless = ownerlessSince !== undefined && Date.now() - ownerlessSince > OWNERLESS_MS;
    if (ownerless || (owner !== undefined && !(await isAlive(owner)))) {
      // Renamed before removal: of two processes breaking the same stale lock, one wins.
      const stale = `${dir}.stale-${process.pid}-${Date.now()}`;
      await rename(dir, stale).then(
        () => rm(stale, { recursive: true, force: true }),
        () => undefined,
      );
      continue;
    }
    if (Date.now() > deadline) {
      throw new StackError(
        'STACK_BUSY',
        `the stack in ${stateDir} stayed locked for ${Math.round(options.timeoutMs / 1000)} s by ` +
          `${owner ? `pid ${owner.pid} (${owner.what})` : 'a process that did not say who it is'}; ` +
          `if that process is gone, remove ${dir}`,
        { canRetry: true },
      );
    }
    if (!told && owner !== undefined) {
      options.report('stack', `waiting for pid ${owner.pid} (${owner.what}) to finish with the stack…`);
      told = true;
    }
    await sleep(POLL_MS);
  }
  const owner: LockOwner = { pid: process.pid, start: await processStartTime(process.pid), what };
  await writeFile(join(dir, 'owner.json'), JSON.stringify(owner));
  try {
    return await work();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** undefined while the owner has made the folder but not yet written its name. */
async function readOwner(dir: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

async function isAlive(owner: LockOwner): Promise<boolean> {
  const start = await processStartTime(owner.pid);
  return start !== null && (owner.start === null || start === owner.start);
}
