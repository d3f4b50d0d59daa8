import { flushCompileCache } from 'node:module';
import { parseArgs } from 'node:util';
import { DEFAULT_EVENTS_TOPIC } from '@hookstream/contracts';
import {
  FleetProcess,
  HealthServer,
  loadPushConfig,
  loadSubscriber,
  type PushConfig,
  PushConfigError,
  Pusher,
} from '@hookstream/pusher';
import { PusherError } from '@hookstream/pusher-core';
import { CatalogError, loadSecretsKey, type SecretsKey } from '@hookstream/subscribers';
import {
  collectorStateLogger,
  createLogger,
  logFn,
  type Metrics,
  type MetricsServer,
  observeSpanExport,
  serveMetrics,
  startMetrics,
  startTracing,
} from '@hookstream/telemetry';
import { releaseStartupHeap } from './release-startup-heap.ts';

export const PUSH_USAGE = `Usage: hookstream push --config <subscriber.json> | --all [--match <globs>] [--secrets-key-file <f>]
                       [--topic <events topic>] [--redis <url>]
                       [--metrics-port <port>] [--log-level <level>]
                       [--health-port <n>] [--health-host <address>]
                       [--resume-from earliest|latest|<time>] [--session-timeout <ms>]
                       [--memory-budget <MiB>]

With --config, runs one subscriber's pusher from a definition file; with --all, runs every
active subscriber of the registry (hookstream subscribers apply) in this one process and follows
the registry while it runs: an applied subscriber starts within seconds, a changed one restarts,
a paused or deleted one stops after committing what it settled. Either way each subscriber is its
own consumer group hookstream.sub.<name> on the events topic, and every matching event goes to
its URL, signed and rate-limited. Run the same command on several machines to share the work:
each subscriber's group spreads its partitions over the instances.

Options:
  --config <file>   the subscriber definition (JSON; see docs/subscribers.md)
  --all             every active subscriber of the catalog topic hookstream.subscribers
  --match <globs>   with --all: only names matching one of these comma-separated globs
                    (* any run, ? one character), so several fleets can split the registry
  --instance <name> with --all: the name this instance reports under (hookstream subscribers
                    list shows it; default host:pid); unique among running instances
  --secrets-key-file <f>  the key that opens managed secrets (else HOOKSTREAM_SECRETS_KEY);
                    a managed subscriber cannot run without it and is reported
  --tier-partitions <n>  with --all: partitions of each subscriber's retry tiers and DLQ,
                    made when it starts (default 1; at most the events topic's)
  --fetch-wait <ms> how long an idle group's fetch waits (default 100 with --config, 1000 with
                    --all: an idle group costs one fetch per wait; new events arrive at once)
  --topic <name>    the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --redis <url>     share the destination's limits with the subscriber's other instances through
                    Redis, e.g. redis://127.0.0.1:6379 (or HOOKSTREAM_LIMITER_REDIS); needed as
                    soon as one subscriber runs on more than one instance
  --metrics-port <port>  serve GET /metrics (Prometheus text) on 127.0.0.1:<port>: lag and age
                    of the oldest unsettled record per topic, outcomes, latencies, tier and
                    DLQ depth (or HOOKSTREAM_METRICS_PORT; 0 picks a free port)
  --health-port <n> serve GET /healthz and GET /readyz there (both 200 once started; 503
                    before and after a fatal error), e.g. for container healthchecks and
                    Kubernetes probes (or HOOKSTREAM_PUSHER_HEALTH_PORT; unset: no HTTP server)
  --health-host <a> its address (default 127.0.0.1, or HOOKSTREAM_PUSHER_HEALTH_HOST)
  --resume-from <p> where a known subscriber whose ledger is gone resumes: earliest, latest or an
                    RFC 3339 time. Without it such a pusher refuses to start (LEDGER_LOST)
                    rather than silently restart from its start setting
  --session-timeout <ms>  how long the group waits for a silent instance (killed, frozen)
                    before its partitions move to the others: 6000..300000 (default 30000, or
                    HOOKSTREAM_SESSION_TIMEOUT_MS). Shorter means a faster takeover after a crash
  --memory-budget <MiB>  bytes of records the process keeps while they wait (the shared
                    fetch's recent records, lanes queued behind a slow endpoint, retry tiers):
                    16..16384 (default 256, or HOOKSTREAM_MEMORY_BUDGET_MB). When full, fetching
                    pauses until records settle; nothing is dropped (docs/operations.md, "Memory")
  --log-level <level>  debug | info | warn | error (default LOG_LEVEL, else info); debug logs
                    every delivery

HOOKSTREAM_EGRESS_PROXY=http://[user:password@]host:port sends every delivery through that HTTP
proxy (CONNECT to the destination's checked address; TLS inside the tunnel); hosts NO_PROXY names
(comma-separated hosts or domain suffixes, * for all) go direct. A failure of the proxy is
retried and not counted against the destination (proxy-error).

A definition's outbound credentials come from the environment, HOOKSTREAM_OAUTH_* variables
(oauth2.clientSecret) and HOOKSTREAM_CLIENT_KEY_* variables (clientCertificate.key, a PEM
private key), read when the subscriber starts, or are managed: sealed in the catalog (subscribers
credential set), opened with the secrets key. A token endpoint that fails is retried and not
counted against the destination (token-error); docs/subscribers.md, "Outbound authentication".

Traces go to OTLP/HTTP as service hookstream-pusher, configured by the standard OTEL_* variables
(OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER[_ARG]; default: every trace the ingress sampled,
and every retry and dead letter whatever the sampler; a bad value stops it; OTEL_SDK_DISABLED=true
turns tracing off). Logs are JSON lines on stdout.

Stops cleanly on SIGTERM/SIGINT: takes no new work, lets in-flight attempts end, commits what
was settled.`;

/**
 * Bytes one subscriber's fetch may bring back in a fleet (a single pusher keeps kafkajs's 10 MiB).
 * At a rebalance of every group (an instance killed) each member reads on by itself from its
 * ledger and holds its last answer through the rejoin: at 256 KiB a survivor of 1,000 members
 * held 150 MB of decoded batches and ran out of heap under the chart's 768 MiB limit.
 */
const FLEET_FETCH_MAX_BYTES = 64 * 1024;

/** `hookstream push`: runs until a signal (exit 0) or a fatal consumer error (exit 1). */
export async function pushCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      config: { type: 'string' },
      all: { type: 'boolean' },
      match: { type: 'string' },
      'secrets-key-file': { type: 'string' },
      'tier-partitions': { type: 'string' },
      'fetch-wait': { type: 'string' },
      topic: { type: 'string' },
      redis: { type: 'string' },
      'metrics-port': { type: 'string' },
      'log-level': { type: 'string' },
      'health-port': { type: 'string' },
      'resume-from': { type: 'string' },
      'health-host': { type: 'string' },
      'session-timeout': { type: 'string' },
      'memory-budget': { type: 'string' },
      instance: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const { help, ...flags } = values;
  if (help || (!flags.config && !flags.all)) {
    (help ? process.stdout : process.stderr).write(`${PUSH_USAGE}\n`);
    return help ? 0 : 2;
  }
  let config: PushConfig;
  try {
    config = loadPushConfig(flags, process.env);
  } catch (err) {
    if (!(err instanceof PushConfigError)) throw err;
    process.stderr.write(`hookstream push: ${err.message}\n`);
    return 2;
  }
  const { mode } = config;
  let loaded: Awaited<ReturnType<typeof loadSubscriber>> | null = null;
  let secretsKey: SecretsKey | undefined;
  try {
    if (mode.kind === 'one') loaded = await loadSubscriber(mode.configFile);
    else secretsKey = await loadSecretsKey({ keyFile: mode.secretsKeyFile });
  } catch (err) {
    if (err instanceof PusherError || err instanceof CatalogError) {
      process.stderr.write(`hookstream push: ${err.code}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const root = createLogger({ name: 'hookstream-pusher', level: config.logLevel });
  // One subscriber: bound once, every line of this process is about it. A fleet: per subscriber.
  const logger = loaded ? root.child({ subscriber: loaded.definition.name }) : root;
  const log = logFn(logger);
  const tracing = await startTracing({
    serviceName: 'hookstream-pusher',
    onCollectorState: collectorStateLogger(log),
  });
  const metrics: Metrics | undefined =
    config.metricsPort === undefined ? undefined : await startMetrics({ serviceName: 'hookstream-pusher' });
  if (metrics) observeSpanExport(metrics.meter, tracing);
  let metricsServer: MetricsServer | undefined;
  const health = config.health ? new HealthServer() : null;
  let fatal: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => {
    fatal = resolve;
  });
  const common = {
    kafka: config.connection.kafka,
    registry: config.connection.registry,
    topic: config.topic,
    limiterRedisUrl: config.limiterRedisUrl,
    fetchWaitMs: config.fetchWaitMs,
    memoryBudgetBytes: config.memoryBudgetBytes,
    egressProxy: config.egressProxy,
    log,
    ...(metrics ? { meter: metrics.meter } : {}),
    ...(config.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: config.sessionTimeoutMs }),
  };
  const pusher: { start(): Promise<unknown>; stop(): Promise<void> } | FleetProcess =
    loaded && mode.kind === 'one'
      ? new Pusher(loaded, {
          ...common,
          onFatal: (error) => fatal(error),
          ...(mode.resumeFrom === undefined
            ? {}
            : {
                resumeFrom:
                  mode.resumeFrom === 'earliest' || mode.resumeFrom === 'latest'
                    ? mode.resumeFrom
                    : { timestampMs: Date.parse(mode.resumeFrom) },
              }),
        })
      : new FleetProcess({
          ...common,
          match: mode.kind === 'fleet' ? mode.match : undefined,
          instance: mode.kind === 'fleet' ? mode.instance : undefined,
          secretsKey,
          tierPartitions: mode.kind === 'fleet' ? mode.tierPartitions : 1,
          // A fleet's groups each hold their own fetched batches: 64 KiB each bounds the lot.
          fetchMaxBytes: FLEET_FETCH_MAX_BYTES,
          logFor: (name) => logFn(root.child({ subscriber: name })),
        });
  const shutdown = async () => {
    if (health) health.healthy = false;
    await pusher.stop().catch(() => undefined);
    await health?.close();
    await metricsServer?.close();
    await metrics?.shutdown();
    await tracing.shutdown();
  };
  try {
    if (metrics && config.metricsPort !== undefined) {
      metricsServer = await serveMetrics(metrics, '127.0.0.1', config.metricsPort);
      log('info', 'serving metrics', { url: metricsServer.url });
    }
    if (health && config.health) {
      const { host, port } = config.health;
      const bound = await health.listen(port, host);
      log('info', 'health endpoint listening', { host, port: bound });
    }
    log('info', loaded ? 'pusher starting' : 'fleet starting', { tracing: tracing.enabled });
    await pusher.start();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    process.stderr.write(
      `hookstream push: ${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message}\n`,
    );
    await shutdown();
    return 1;
  }
  if (health) health.healthy = true;
  // Writes what this start compiled (the lazily loaded tracing SDK too) now, not at exit: a
  // pusher that is killed, or never stops, still leaves the next start a warm cache.
  flushCompileCache();
  releaseStartupHeap();
  // A fleet's subscribers join after start() returned: their joins leave the heap at its largest
  // (a young generation grown to its limit, garbage in the old one) until a collection that may
  // not come for minutes when idle. Released again once they have all started.
  if (pusher instanceof FleetProcess) void pusher.allStarted().then(releaseStartupHeap);
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const ended = await Promise.race([signalled, failed]);
  await shutdown();
  if (ended instanceof Error) {
    log('error', 'pusher stopped after a fatal consumer error', { error: ended.message });
    return 1;
  }
  return 0;
}
