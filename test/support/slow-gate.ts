import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the gate held: when it came in and when its answer went back. */
export interface HeldRequest {
  readonly eventId: string | null;
  readonly receivedAt: number;
  answeredAt: number | null;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding']);

/**
 * A slow endpoint in front of a receiver: holds each request for the delay in force when it
 * arrived, then forwards it and relays the answer. Unlike the receiver's own delayMs it shows
 * which requests are in flight right now, so a test can act while they hang.
 */
export class SlowGate {
  readonly held: HeldRequest[] = [];
  readonly #server: Server;
  readonly #target: string;
  #delayMs: number;
  #port = 0;

  constructor(target: string, delayMs: number) {
    this.#target = target;
    this.#delayMs = delayMs;
    this.#server = createServer((req, res) => {
      this.#forward(req).then(
        ({ status, entry }) => {
          entry.answeredAt = Date.now();
          res.writeHead(status).end();
        },
        () => res.writeHead(502).end(),
      );
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((ok) => this.#server.listen(0, '127.0.0.1', ok));
    this.#port = (this.#server.address() as AddressInfo).port;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** Requests received and not answered yet. */
  get pending(): number {
    return this.held.filter((h) => h.answeredAt === null).length;
  }

  setDelay(ms: number): void {
    this.#delayMs = ms;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((ok) => this.#server.close(() => ok()));
  }

  async #forward(req: IncomingMessage): Promise<{ status: number; entry: HeldRequest }> {
    const delay = this.#delayMs;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const entry: HeldRequest = {
      eventId: headerOf(req, 'webhook-id'),
      receivedAt: Date.now(),
      answeredAt: null,
    };
    this.held.push(entry);
    await new Promise((ok) => setTimeout(ok, delay));
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
    const answer = await fetch(`${this.#target}${req.url ?? '/'}`, { method: 'POST', headers, body });
    await answer.arrayBuffer();
    return { status: answer.status, entry };
  }
}

function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}
