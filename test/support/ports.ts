import { createServer } from 'node:net';

/**
 * Ports for child processes and servers that cannot bind port 0 themselves (an ingress child, a
 * private broker). Each vitest worker draws from its own band below Linux's ephemeral range
 * (32768+), so two files running side by side never pick the same port, and outgoing
 * connections never take one between the pick and the bind. Within a file a cursor moves on, so
 * two picks before either binds differ; a port some other process (another checkout) holds is
 * skipped. Servers of this process bind port 0 instead.
 */
const FIRST = 20_000;
const LAST = 32_000;
const BANDS = 8;
const BAND = Math.floor((LAST - FIRST) / BANDS);

function bandOf(worker: number): { readonly from: number; readonly to: number } {
  const from = FIRST + ((worker - 1) % BANDS) * BAND;
  return { from, to: from + BAND };
}

// VITEST_POOL_ID is 1..maxWorkers; outside vitest (a script), band 1.
const worker = Math.max(1, Number.parseInt(process.env.VITEST_POOL_ID ?? '1', 10) || 1);
const band = bandOf(worker);
let cursor = band.from + Math.floor(Math.random() * (BAND / 2));

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive ports of this worker's band, free now and not handed out before. */
export async function freePortRange(count: number): Promise<number> {
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new RangeError(`port count ${count}`);
  for (let tried = 0; tried < BAND; tried += count) {
    if (cursor + count > band.to) cursor = band.from;
    const base = cursor;
    cursor += count;
    let free = true;
    for (let p = base; p < base + count && free; p++) free = await canBind(p);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports in ${band.from}-${band.to} (worker ${worker})`);
}

/** One port of this worker's band (see freePortRange). */
export function freePort(): Promise<number> {
  return freePortRange(1);
}
