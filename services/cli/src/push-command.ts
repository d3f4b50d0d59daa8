import { parseArgs } from 'node:util';
import { DEFAULT_EVENTS_TOPIC } from '@hookstream/contracts';
import { HealthServer, jsonLogger, loadSubscriber, Pusher, PusherError } from '@hookstream/pusher';
import { runtimeEndpoints } from './runtime-endpoints.ts';

export const PUSH_USAGE = `Usage: hookstream push --config <subscriber.json> [--topic <events topic>] [--redis <url>]
                      [--health-port <n>] [--health-host <address>]

Runs one subscriber's pusher: joins consumer group hookstream.sub.<name> on the events topic and
delivers every matching event to the subscriber's URL, signed and rate-limited. Run the same
command on several machines to share the work (more partitions, more instances).

Options:
  --config <file>   the subscriber definition (JSON; see README "Adding a subscriber")
  --topic <name>    the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --redis <url>     share the destination's limits with the subscriber's other instances through
                    Redis, e.g. redis://127.0.0.1:6379 (or HOOKSTREAM_LIMITER_REDIS); needed as
                    soon as one subscriber runs on more than one instance
  --health-port <n> serve GET /healthz there (200 once started; 503 before and after a fatal
                    error), e.g. for container healthchecks (or HOOKSTREAM_PUSHER_HEALTH_PORT;
                    unset: no HTTP server)
  --health-host <a> its address (default 127.0.0.1, or HOOKSTREAM_PUSHER_HEALTH_HOST)

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
      'health-port': { type: 'string' },
      'health-host': { type: 'string' },
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
  const log = jsonLogger({ service: 'pusher', subscriber: loaded.definition.name });
  const healthPort = values['health-port'] ?? process.env.HOOKSTREAM_PUSHER_HEALTH_PORT;
  const health = healthPort ? new HealthServer() : null;
  if (health && healthPort) {
    const host = values['health-host'] ?? (process.env.HOOKSTREAM_PUSHER_HEALTH_HOST || '127.0.0.1');
    const port = await health.listen(Number(healthPort), host);
    log('info', 'health endpoint listening', { host, port });
  }
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
  });
  try {
    await pusher.start();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    process.stderr.write(
      `hookstream push: ${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message}\n`,
    );
    await pusher.stop().catch(() => undefined);
    await health?.close();
    return 1;
  }
  if (health) health.healthy = true;
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  const ended = await Promise.race([signalled, failed]);
  if (health) health.healthy = false;
  await pusher.stop();
  await health?.close();
  if (ended instanceof Error) {
    log('error', 'pusher stopped after a fatal consumer error', { error: ended.message });
    return 1;
  }
  return 0;
}
