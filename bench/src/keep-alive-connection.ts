import { connect, type Socket } from 'node:net';

/**
 * One keep-alive HTTP/1.1 connection that sends a request and reads back the status, the way
 * wrk or autocannon do: no header objects, no streams, so the load generator spends little of
 * the CPU it shares with the ingress and the broker on this 2-core machine. Only for the
 * ingress's own answers (Content-Length bodies, no chunking). A connection the server closed
 * while idle (its keep-alive timeout, between two runs) is opened again on the next send.
 */
export class KeepAliveConnection {
  readonly #host: string;
  readonly #port: number;
  #socket: Socket | null = null;
  #ready: Promise<void> = Promise.resolve();
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: ((status: number) => void) | null = null;

  constructor(host: string, port: number) {
    this.#host = host;
    this.#port = port;
    this.#open();
  }

  /** Sends one request (head + body bytes) and resolves with the status (0 when the connection failed). */
  async send(request: Buffer): Promise<number> {
    if (this.#socket === null) this.#open();
    try {
      await this.#ready;
    } catch {
      return 0;
    }
    const socket = this.#socket;
    if (socket === null) return 0;
    return new Promise((resolve) => {
      this.#waiting = resolve;
      socket.write(request);
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = null;
  }

  #open(): void {
    const socket = connect({ host: this.#host, port: this.#port, noDelay: true });
    this.#socket = socket;
    this.#buffer = Buffer.alloc(0);
    this.#ready = new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    // Without a listener an early failure would be an unhandled rejection; send() reports it.
    this.#ready.catch(() => undefined);
    socket.on('data', (chunk) => this.#onData(chunk));
    // 'error' and 'close' both come; only the first, and only for the current socket, counts.
    const gone = () => {
      if (this.#socket !== socket) return;
      this.#socket = null;
      this.#settle(0);
    };
    socket.on('close', gone);
    socket.on('error', gone);
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.#buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? '0');
    if (this.#buffer.length < end + 4 + length) return;
    this.#buffer = this.#buffer.subarray(end + 4 + length);
    this.#settle(Number(head.slice(9, 12)));
  }

  #settle(status: number): void {
    const waiting = this.#waiting;
    this.#waiting = null;
    waiting?.(status);
  }
}

/** The bytes of a POST with a JSON body. */
export function postRequest(host: string, port: number, path: string, token: string, body: string): Buffer {
  const bytes = Buffer.from(body);
  const head =
    `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}
