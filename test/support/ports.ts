import { createServer } from 'node:net';

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * The first port of `count` consecutive ports that are free on 127.0.0.1 right now. It searches
 * below Linux's ephemeral range (32768+), where outgoing connections could take a port between
 * this check and the server binding it.
 */
export async function freePortRange(count: number, from = 20_000): Promise<number> {
  for (let base = from + Math.floor(Math.random() * 5000) * 2; base < 32_000; base += count) {
    let free = true;
    for (let p = base; p < base + count && free; p++) free = await canBind(p);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports`);
}

/** One free port outside the ephemeral range (see freePortRange). */
export function freePort(): Promise<number> {
  return freePortRange(1);
}
