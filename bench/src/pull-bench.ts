import { randomBytes } from 'node:crypto';
import type { ConnectionSettings } from '@hookstream/contracts';
import { removeBenchTopics } from './bench-topic.ts';
import { connectionEnv } from './child-env.ts';
import { type ChildService, spawnListening } from './listening-child.ts';
import { type ChildUsage, startChildUsage } from './proc-usage.ts';
import { drainWithPusher, produceBacklog, withNoopEndpoint } from './push-bench.ts';

export interface PullBenchOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  readonly events: number;
  readonly partitions: number;
  /** Events per lease (`max`). */
  readonly max: number;
  /** Pullers leasing and acknowledging at once. */
  readonly pullers: number;
  /** The push baseline's concurrency. */
  readonly concurrency: number;
}

export interface PullBenchResult {
  readonly events: number;
  readonly partitions: number;
  readonly max: number;
  readonly pullers: number;
  /** Events leased and acknowledged per second, through the API in its own process. */
  readonly pullPerSecond: number;
  readonly leases: number;
  /** The same backlog pushed to a no-op endpoint, in this run. */
  readonly pushPerSecond: number;
  /** pull / push. */
  readonly ratio: number;
  /** The API process's CPU (/proc, every thread) over the pulling ÷ events acknowledged, µs. */
  readonly pullCpuMicrosPerEvent: number;
  /** The API process's peak RSS growth over the pulling ÷ leases in flight (the pullers), KiB. */
  readonly pullRssKiBPerLease: number;
  /** The pusher's CPU (process.cpuUsage()) over its drain ÷ deliveries, µs. */
  readonly pushCpuMicrosPerDelivery: number;
}

interface LeaseAnswer {
  readonly lease: { readonly id: string } | null;
  readonly events: readonly unknown[];
  readonly cursors: readonly string[];
}

/**
 * Pull against push on one backlog: the API serving a pull subscriber in its own process, with
 * `pullers` clients each leasing `max` events and acknowledging them at once (by cursor), until
 * the backlog is through; then a pusher drains the same backlog to a no-op endpoint.
 */
export async function benchPull(
  options: PullBenchOptions,
  progress: (line: string) => void,
): Promise<PullBenchResult> {
  const topic = `hookstream.bench.${randomBytes(4).toString('hex')}`;
  try {
    return await pullAgainstPush(options, topic, progress);
  } finally {
    await removeBenchTopics(options.connection.kafka, [topic]);
  }
}

async function pullAgainstPush(
  options: PullBenchOptions,
  topic: string,
  progress: (line: string) => void,
): Promise<PullBenchResult> {
  progress(`producing a backlog of ${options.events} events to ${topic}`);
  await produceBacklog({ ...options, concurrency: options.concurrency }, topic);
  const token = randomBytes(18).toString('base64url');
  const api = await spawnPullApi(options.connection, topic, token);
  let pulled: Pulled;
  try {
    pulled = await pullAll(api, token, options, progress);
  } finally {
    await api.stop();
  }
  progress(`push: the same backlog to a no-op endpoint, concurrency ${options.concurrency}`);
  const pushed = await withNoopEndpoint(0, (url) =>
    drainWithPusher({ ...options, connection: options.connection }, topic, url),
  );
  const pushPerSecond = Math.round(pushed.deliveries / pushed.seconds);
  return {
    events: options.events,
    partitions: options.partitions,
    max: options.max,
    pullers: options.pullers,
    pullPerSecond: pulled.perSecond,
    leases: pulled.leases,
    pushPerSecond,
    ratio: Math.round((pulled.perSecond / pushPerSecond) * 1000) / 1000,
    pullCpuMicrosPerEvent: Math.round((pulled.api.cpuMicros / Math.max(1, pulled.acked)) * 10) / 10,
    pullRssKiBPerLease: Math.round((pulled.api.rssGrowthBytes / 1024 / options.pullers) * 10) / 10,
    pushCpuMicrosPerDelivery: Math.round((pushed.cpuMicros / pushed.deliveries) * 10) / 10,
  };
}

interface Pulled {
  readonly perSecond: number;
  readonly leases: number;
  readonly acked: number;
  /** The API process's CPU and RSS growth from after the warm-up lease until the last ack. */
  readonly api: ChildUsage;
}

async function pullAll(
  api: ChildService,
  token: string,
  options: PullBenchOptions,
  progress: (line: string) => void,
): Promise<Pulled> {
  const base = api.url;
  const name = `bench-pull-${randomBytes(3).toString('hex')}`;
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  await call('PUT', `/v1/subscribers/${name}`, { mode: 'pull', start: 'earliest' });
  const lease = (max: number) =>
    call('GET', `/v1/subscribers/${name}/events?max=${max}&wait=2&lease=120`) as Promise<LeaseAnswer>;
  progress(`pull: ${name} joins its group (the first lease waits for it)`);
  // Warm-up: the group joined and events waiting; the one leased goes back at once.
  for (;;) {
    const first = await lease(1);
    if (first.lease === null) continue;
    await call('POST', `/v1/subscribers/${name}/nack`, { lease: first.lease.id });
    break;
  }
  progress(`pull: ${options.pullers} pullers, max ${options.max}, acknowledging each lease at once`);
  let acked = 0;
  let leases = 0;
  const usage = await startChildUsage(api.pid);
  const started = performance.now();
  const puller = async () => {
    while (acked < options.events) {
      const answer = await lease(options.max);
      if (answer.lease === null) continue;
      leases++;
      const { acked: n } = (await call('POST', `/v1/subscribers/${name}/ack`, {
        lease: answer.lease.id,
        cursors: answer.cursors,
      })) as { acked: number };
      acked += n;
    }
  };
  await Promise.all(Array.from({ length: options.pullers }, puller));
  const seconds = (performance.now() - started) / 1000;
  const apiUsage = await usage.end();
  await call('DELETE', `/v1/subscribers/${name}?purge=true`).catch(() => undefined);
  return { perSecond: Math.round(acked / seconds), leases, acked, api: apiUsage };
}

function spawnPullApi(connection: ConnectionSettings, topic: string, token: string): Promise<ChildService> {
  return spawnListening(
    new URL('./pull-api-process.ts', import.meta.url),
    { PULL_BENCH_TOPIC: topic, PULL_BENCH_TOKEN: token, ...connectionEnv(connection) },
    'the API',
  );
}
