import { createServer } from 'node:net';

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first port of `count` consecutive ports that are free on 127.0.0.1 right now. */
export async function freePortRange(count: number, from = 41_000): Promise<number> {
  for (let base = from + Math.floor(Math.random() * 2000) * 2; base < 60_000; base += count) {
    let free = true;
    for (let p = base; p < base + count && free; p++) free = await canBind(p);
    if (free) return base;
  }
  throw new Error(`no ${count} consecutive free ports`);
}
