import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * A small HTTP proxy that takes CONNECT, as an egress proxy does: it records every tunnel's
 * target and pipes the bytes. `refuse` answers every CONNECT 403 instead.
 */
export class ConnectProxy {
  readonly targets: string[] = [];
  refuse = false;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #url = '';

  constructor() {
    this.#server = createServer((_req, res) => {
      res.writeHead(405).end();
    });
    this.#server.on('connect', (req, client: Socket, head: Buffer) => {
      this.#sockets.add(client);
      client.once('close', () => this.#sockets.delete(client));
      const target = req.url ?? '';
      this.targets.push(target);
      if (this.refuse) {
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
        return;
      }
      const at = target.lastIndexOf(':');
      const upstream = connect(Number(target.slice(at + 1)), target.slice(0, at).replace(/^\[(.*)\]$/, '$1'));
      this.#sockets.add(upstream);
      upstream.once('close', () => this.#sockets.delete(upstream));
      upstream.once('connect', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'));
      client.once('error', () => upstream.destroy());
    });
  }

  /** Listens on a free loopback port; the proxy URL (http://127.0.0.1:<port>). */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as { port: number };
    this.#url = `http://127.0.0.1:${port}`;
    return this.#url;
  }

  get url(): string {
    return this.#url;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
