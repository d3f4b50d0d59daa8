import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// Not an ESM import of node:http: that evaluates its lazy WebSocket exports, which load Node's
// bundled undici (~8 MB RSS) into every pusher, none of which needs it.
const { createServer } = process.getBuiltinModule('node:http');

/** The paths served, both with the same answer (see the class comment). */
const PATHS = new Set(['/healthz', '/readyz']);

/**
 * GET /healthz and GET /readyz for a pusher process: 200 once the pusher started, 503 before
 * that and after a fatal consumer error. A pusher has no HTTP side otherwise; container
 * healthchecks need one. Both paths answer the same on purpose: a pusher takes no requests, so
 * readiness only gates rollouts (a new pod counts once it started consuming), and the two
 * names let Kubernetes probes say which question they ask without a special case.
 */
export class HealthServer {
  readonly #server: Server;
  #healthy = false;

  constructor() {
    this.#server = createServer((req, res) => {
      const ok = req.method === 'GET' && PATHS.has(req.url ?? '');
      const status = !ok ? 404 : this.#healthy ? 200 : 503;
      res.writeHead(status, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: status === 200 ? 'ok' : status === 503 ? 'starting or failed' : 'not found',
        }),
      );
    });
  }

  async listen(port: number, host: string): Promise<number> {
    await new Promise<void>((ok, fail) => {
      this.#server.once('error', fail);
      this.#server.listen(port, host, () => ok());
    });
    return (this.#server.address() as AddressInfo).port;
  }

  set healthy(value: boolean) {
    this.#healthy = value;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((ok) => this.#server.close(() => ok()));
  }
}
