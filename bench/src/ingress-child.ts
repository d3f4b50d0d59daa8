import type { ConnectionSettings } from '@hookstream/contracts';
import { connectionEnv } from './child-env.ts';
import { type ChildService, spawnListening } from './listening-child.ts';

export type { ChildService } from './listening-child.ts';

export interface IngressChildOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly topic: string;
  readonly token: string;
  /** Serve /metrics on a port of its own (ChildService.metricsUrl). */
  readonly metrics?: boolean;
}

/** The ingress under test in its own process (its own event loop, as in production). */
export function spawnIngress(options: IngressChildOptions): Promise<ChildService> {
  return spawnListening(
    new URL('./ingress-process.ts', import.meta.url),
    {
      INGRESS_TOKENS: options.token,
      INGRESS_TOPIC: options.topic,
      INGRESS_LOG_LEVEL: 'warn',
      ...(options.metrics === true ? { INGRESS_METRICS_PORT: '0' } : {}),
      ...connectionEnv(options.connection),
    },
    'the ingress',
  );
}

/**
 * The ingress's HTTP baseline: a bare `node:http` server in its own process, as the ingress runs
 * in one, that only reads and parses the body and answers 202.
 */
export function spawnBareHttp(): Promise<ChildService> {
  return spawnListening(new URL('./bare-http-process.ts', import.meta.url), {}, 'the bare node:http server');
}
