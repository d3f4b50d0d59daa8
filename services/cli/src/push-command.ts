import { parseArgs } from 'node:util';
import { DEFAULT_EVENTS_TOPIC, StartPosition } from '@hookstream/contracts';
import { HealthServer, loadSubscriber, Pusher } from '@hookstream/pusher';
import { PusherError } from '@hookstream/pusher-core';
import {
  createLogger,
  logFn,
  type Metrics,
  type MetricsServer,
  serveMetrics,
  startMetrics,
  startTracing,
} from '@hookstream/telemetry';
import { runtimeEndpoints } from './runtime-endpoints.ts';

export const PUSH_USAGE = `Usage: hookstream push --config <subscriber.json> [--topic <events topic>] [--redis <url>]
                       [--metrics-port <port>] [--log-level <level>]
                       [--health-port <n>] [--health-host <address>]
                       [--resume-from earliest|latest|<time>] [--session-timeout <ms>]

Runs one subscriber's pusher: joins consumer group hookstream.sub.<name> on the events topic and
delivers every matching event to the subscriber's URL, signed and rate-limited. Run the same
command on several machines to share the work (more partitions, more instances).

Options:
  --config <file>   the subscriber definition (JSON; see README "Adding a subscriber")
  --topic <name>    the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --redis <url>     share the destination's limits with the subscriber's other instances through
                    Redis, e.g. redis://127.0.0.1:6379 (or HOOKSTREAM_LIMITER_REDIS); needed as
                    soon as one subscriber runs on more than one instance
  --metrics-port <port>  serve GET /metrics (Prometheus text) on 127.0.0.1:<port>: lag and age
                    of the oldest unsettled record per topic, outcomes, latencies, tier and
                    DLQ depth (or HOOKSTREAM_METRICS_PORT; 0 picks a free port)
  --health-port <n> serve GET /healthz there (200 once started; 503 before and after a fatal
                    error), e.g. for container healthchecks (or HOOKSTREAM_PUSHER_HEALTH_PORT;
                    unset: no HTTP server)
  --health-host <a> its address (default 127.0.0.1, or HOOKSTREAM_PUSHER_HEALTH_HOST)
  --resume-from <p> where a known subscriber whose ledger is gone resumes: earliest, latest or an
                    RFC 3339 time. Without it such a pusher refuses to start (LEDGER_LOST)
                    rather than silently restart from its start setting
  --session-timeout <ms>  how long the group waits for a silent instance (killed, frozen)
                    before its partitions move to the others: 6000..300000 (default 30000, or
                    HOOKSTREAM_SESSION_TIMEOUT_MS). Shorter means a faster takeover after a crash
  --log-level <level>  debug | info | warn | error (default LOG_LEVEL, else info); debug logs
                    every delivery

Traces go to OTLP/HTTP as service hookstream-pusher, configured by the standard OTEL_* variables
(OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER[_ARG]; default: every trace the ingress sampled;
OTEL_SDK_DISABLED=true turns tracing off). Logs are JSON lines on stdout.

Stops cleanly on SIGTERM/SIGINT: takes no new work, lets in-flight attempts end, commits what
was settled.`;

/** `hookstream push`: runs until a signal (exit 0) or a fatal consumer error (exit 1). */
export async function pushCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      config: { type: 'string' },
      topic: { type: 'string' },
      redis: { type: 'string' },
      'metrics-port': { type: 'string' },
      'log-level': { type: 'string' },
      'health-port': { type: 'string' },
      'resume-from': { type: 'string' },
      'health-host': { type: 'string' },
      'session-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help || !values.config) {
    (values.help ? process.stdout : process.stderr).write(`${PUSH_USAGE}\n`);
    return values.help ? 0 : 2;
  }
  let loaded: Awaited<ReturnType<typeof loadSubscriber>>;
  try {
    loaded = await loadSubscriber(values.config);
  } catch (err) {
    if (err instanceof PusherError) {
      process.stderr.write(`hookstream push: ${err.code}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const resume =
    values['resume-from'] === undefined ? undefined : StartPosition.safeParse(values['resume-from']);
  if (resume && !resume.success) {
    process.stderr.write(
      `hookstream push: --resume-from: expected earliest, latest or an RFC 3339 time, got '${values['resume-from']}'\n`,
    );
    return 2;
  }
  const metricsPort = values['metrics-port'] ?? process.env.HOOKSTREAM_METRICS_PORT;
  const port = metricsPort === undefined ? undefined : Number(metricsPort);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    process.stderr.write(`hookstream push: --metrics-port: expected a port number, got '${metricsPort}'\n`);
    return 2;
  }
  const sessionTimeout = values['session-timeout'] ?? process.env.HOOKSTREAM_SESSION_TIMEOUT_MS;
  const sessionTimeoutMs = sessionTimeout === undefined ? undefined : Number(sessionTimeout);
  if (
    sessionTimeoutMs !== undefined &&
    !(Number.isInteger(sessionTimeoutMs) && sessionTimeoutMs >= 6_000 && sessionTimeoutMs <= 300_000)
  ) {
    process.stderr.write(
      `hookstream push: --session-timeout: expected milliseconds from 6000 to 300000, got '${sessionTimeout}'\n`,
    );
    return 2;
  }
  const level = values['log-level'] ?? process.env.LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(level)) {
    process.stderr.write(
      `hookstream push: --log-level: expected debug, info, warn or error, got '${level}'\n`,
    );
    return 2;
  }
  // The subscriber is bound once: every line of this process is about it.
  const logger = createLogger({ name: 'hookstream-pusher', level }).child({
    subscriber: loaded.definition.name,
  });
  const log = logFn(logger);
  const tracing = startTracing({ serviceName: 'hookstream-pusher' });
  const metrics: Metrics | undefined =
    port === undefined ? undefined : startMetrics({ serviceName: 'hookstream-pusher' });
  let metricsServer: MetricsServer | undefined;
  const healthPort = values['health-port'] ?? process.env.HOOKSTREAM_PUSHER_HEALTH_PORT;
  const health = healthPort ? new HealthServer() : null;
  let fatal: (error: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => {
    fatal = resolve;
  });
  const pusher = new Pusher(loaded, {
    ...runtimeEndpoints(),
    topic: values.topic ?? process.env.HOOKSTREAM_EVENTS_TOPIC ?? DEFAULT_EVENTS_TOPIC,
    limiterRedisUrl: values.redis ?? process.env.HOOKSTREAM_LIMITER_REDIS,
    log,
    onFatal: (error) => fatal(error),
    ...(resume?.success
      ? {
          resumeFrom:
            resume.data === 'earliest' || resume.data === 'latest'
              ? resume.data
              : { timestampMs: Date.parse(resume.data) },
        }
      : {}),
    ...(metrics ? { meter: metrics.meter } : {}),
    ...(sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs }),
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
    if (metrics && port !== undefined) {
      metricsServer = await serveMetrics(metrics, '127.0.0.1', port);
      log('info', 'serving metrics', { url: metricsServer.url });
    }
    if (health && healthPort) {
      const host = values['health-host'] ?? (process.env.HOOKSTREAM_PUSHER_HEALTH_HOST || '127.0.0.1');
      const bound = await health.listen(Number(healthPort), host);
      log('info', 'health endpoint listening', { host, port: bound });
    }
    log('info', 'pusher starting', { tracing: tracing.enabled });
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
