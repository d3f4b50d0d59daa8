import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ConnectionSettings, SubscriberDefinition } from '@hookstream/contracts';
import { Pusher } from '@hookstream/pusher';

export interface InProcessPusherOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly topic: string;
  /** What the benchmark sets; the rest is a plain unsigned subscriber of every type from the start. */
  readonly definition: Pick<
    SubscriberDefinition,
    'name' | 'url' | 'rate' | 'concurrency' | 'retry' | 'breaker'
  >;
}

/**
 * A pusher in the benchmark's own process, for benchmarks that count what an endpoint of theirs
 * receives: unsigned, from the earliest record, errors only on stderr, a fatal error thrown.
 */
export function inProcessPusher(options: InProcessPusherOptions): Pusher {
  return new Pusher(
    {
      definition: {
        eventTypes: ['*'],
        timeoutMs: 10_000,
        start: 'earliest',
        ordering: 'none',
        headers: {},
        allowPrivateNetwork: true,
        ...options.definition,
      },
      signingKey: undefined,
    },
    {
      ...options.connection,
      topic: options.topic,
      log: (level, message, fields) => {
        if (level === 'error') process.stderr.write(`${JSON.stringify({ level, message, ...fields })}\n`);
      },
      onFatal: (error) => {
        throw error;
      },
    },
  );
}

/** Listens on a free loopback port; resolves the endpoint's `/hooks` URL. */
export function listenOnLoopback(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}/hooks`);
    });
  });
}
