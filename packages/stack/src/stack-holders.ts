import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { processStartTime } from './processes.ts';

/** One user of the running stack: a test run, `npm start`, or `stack up` typed in a terminal. */
export const StackHolder = z.object({
  id: z.string().regex(/^[\w.-]{1,80}$/),
  /** What holds it, for people: `npm test`, `npm start`, `stack up`. */
  command: z.string().max(200),
  /** The checkout it runs from. */
  checkout: z.string().max(4096),
  /** The holding process; null for `stack up`, which holds until `stack down`. */
  pid: z.number().int().positive().nullable(),
  /** The process's start time, so a recycled pid is not taken for the holder. */
  pidStart: z.string().nullable(),
  since: z.string(),
});
export type StackHolder = z.infer<typeof StackHolder>;

/** What a process says about itself when it takes a hold. */
export interface HoldRequest {
  readonly command: string;
  /** A hold that outlives the process (`stack up` from a terminal), released by `stack down`. */
  readonly untilDown?: boolean;
  /** Stop what this hold starts once the last holder has left (a test run). */
  readonly stopWhenIdle?: boolean;
  /** Start what it must start with empty data folders, removed when stopped (a test run). */
  readonly scratchData?: boolean;
}

/**
 * The holders of the stack in one state folder, one file each under `holders/`. Read and written
 * under the stack's lock; a holder whose process is gone counts as gone and is pruned.
 */
export class StackHolders {
  readonly #dir: string;

  constructor(stateDir: string) {
    this.#dir = join(stateDir, 'holders');
  }

  /** Adds a hold for this process (or, untilDown, for this checkout) and returns it. */
  async add(request: HoldRequest): Promise<StackHolder> {
    const checkout = checkoutOf(process.cwd());
    const holder: StackHolder = request.untilDown
      ? {
          id: `until-down-${createHash('sha256').update(checkout).digest('hex').slice(0, 16)}`,
          command: request.command,
          checkout,
          pid: null,
          pidStart: null,
          since: new Date().toISOString(),
        }
      : {
          id: `${process.pid}-${randomUUID().slice(0, 8)}`,
          command: request.command,
          checkout,
          pid: process.pid,
          pidStart: await processStartTime(process.pid),
          since: new Date().toISOString(),
        };
    await mkdir(this.#dir, { recursive: true });
    await writeFile(this.#file(holder.id), `${JSON.stringify(holder)}\n`);
    return holder;
  }

  async remove(id: string): Promise<void> {
    await rm(this.#file(id), { force: true });
  }

  /** The `stack up` hold of the current checkout, if there is one. */
  async untilDownHolder(): Promise<StackHolder | undefined> {
    const checkout = checkoutOf(process.cwd());
    return (await this.live()).find((h) => h.pid === null && h.checkout === checkout);
  }

  /** Every holder still there; the files of holders whose process died are removed. */
  async live(): Promise<StackHolder[]> {
    let names: string[];
    try {
      names = (await readdir(this.#dir)).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const holders: StackHolder[] = [];
    for (const name of names) {
      const holder = await readHolder(join(this.#dir, name));
      if (holder !== null && (await isLive(holder))) holders.push(holder);
      else await rm(join(this.#dir, name), { force: true });
    }
    return holders.sort((a, b) => a.since.localeCompare(b.since));
  }

  #file(id: string): string {
    return join(this.#dir, `${id}.json`);
  }
}

async function readHolder(file: string): Promise<StackHolder | null> {
  try {
    const parsed = StackHolder.safeParse(JSON.parse(await readFile(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

async function isLive(holder: StackHolder): Promise<boolean> {
  if (holder.pid === null) return true;
  const start = await processStartTime(holder.pid);
  return start !== null && start === holder.pidStart;
}

/** The checkout a command runs in: the nearest folder up from `cwd` with a `.git`, else `cwd`. */
export function checkoutOf(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

/** How a holder reads in `stack status` and in messages. */
export function describeHolder(holder: StackHolder): string {
  const who = holder.pid === null ? 'until `stack down`' : `pid ${holder.pid}`;
  return `${holder.command} in ${holder.checkout} (${who}, since ${holder.since})`;
}
