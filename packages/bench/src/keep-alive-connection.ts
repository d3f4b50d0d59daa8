import { connect, type Socket } from 'node:net';

/**
 * One keep-alive HTTP/1.1 connection that sends a request and reads back the status, the way
 * wrk or autocannon do: no header objects, no streams, so the load generator spends little of
 * the CPU it shares with the ingress and the broker on this 2-core machine. Only for the
 * ingress's own answers (Content-Length bodies, no chunking).
 */
export class KeepAliveConnection {
  readonly #socket: Socket;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: ((status: number) => void) | null = null;
  readonly #ready: Promise<void>;

  constructor(host: string, port: number) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#ready = new Promise((resolve, reject) => {
      this.#socket.once('connect', resolve);
      this.#socket.once('error', reject);
    });
    this.#socket.on('data', (chunk) => this.#onData(chunk));
    this.#socket.on('close', () => this.#settle(0));
    this.#socket.on('error', () => this.#settle(0));
  }

  /** Sends one request (head + body bytes) and resolves with the status (0 when the connection failed). */
  async send(request: Buffer): Promise<number> {
    await this.#ready;
    return new Promise((resolve) => {
      this.#waiting = resolve;
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#socket.destroy();
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
