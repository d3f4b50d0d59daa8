import { KeepAliveConnection, postRequest } from './keep-alive-connection.ts';
import { kibEvent } from './payload.ts';

/**
 * Publishes single ~1 KiB events with ids of the caller's choosing to POST /v1/events over a
 * pool of keep-alive connections; a publish waits for a free connection, so at most
 * `connections` requests are in flight.
 */
export class EventPublisher {
  readonly #host: string;
  readonly #port: number;
  readonly #token: string;
  readonly #free: KeepAliveConnection[] = [];
  readonly #all: KeepAliveConnection[] = [];
  readonly #waiting: ((connection: KeepAliveConnection) => void)[] = [];

  constructor(url: string, token: string, connections: number) {
    const { hostname, port } = new URL(url);
    this.#host = hostname;
    this.#port = Number(port);
    this.#token = token;
    for (let i = 0; i < connections; i++) {
      const connection = new KeepAliveConnection(this.#host, this.#port);
      this.#all.push(connection);
      this.#free.push(connection);
    }
  }

  /**
   * Sends event `n` with this id; resolves with the HTTP status (0: the connection failed).
   * `written` is told when a connection is free and the request goes out.
   */
  async publish(id: string, n: number, written?: () => void): Promise<number> {
    const body = JSON.stringify({ ...kibEvent(n), id });
    const request = postRequest(this.#host, this.#port, '/v1/events', this.#token, body);
    const connection =
      this.#free.pop() ?? (await new Promise<KeepAliveConnection>((resolve) => this.#waiting.push(resolve)));
    try {
      written?.();
      return await connection.send(request);
    } finally {
      const next = this.#waiting.shift();
      if (next) next(connection);
      else this.#free.push(connection);
    }
  }

  close(): void {
    for (const connection of this.#all) connection.close();
  }
}
