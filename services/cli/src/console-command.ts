import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { ConsoleError, ConsoleServer, KafkaConsoleBackend, parseConsoleTokens } from '@hookstream/console';
import { DEFAULT_EVENTS_TOPIC } from '@hookstream/contracts';
import { readDeadLetters } from '@hookstream/dead-letter-tools';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { LiveCatalog } from '@hookstream/subscribers';
import { findEventTraces, startTracing } from '@hookstream/telemetry';
import { toolKafka } from './kafka-client.ts';
import { openNoticePublisher } from './notice-publisher.ts';
import { jaegerQueryUrl, toolEnv } from './tool-env.ts';
import { reportToolError } from './tool-errors.ts';

export const CONSOLE_USAGE = `Usage: hookstream console [--port <n>] [--host <address>] [--topic <events topic>] [--jaeger <url>] [--public-origin <url>]

The operator console in a browser: subscribers (state, breaker, lag, oldest unsettled, DLQ depth,
last error; the page reloads itself), one subscriber (definition without secrets, recent
attempts, tiers, pause / resume), its dead letters (filter, evidence, dry run and replay with
progress), an event's ledger with links to its traces, and the event catalogue.

Log in with one of the tokens in CONSOLE_TOKENS (comma-separated, at least 16 characters each).
Every action is a POST checked against the session's CSRF token and the console's own Origin.
Kafka and the registry: the same variables as every tool (KAFKA_BROKERS, KAFKA_TLS_*, ...).

Options:
  --port <n>             port to listen on (default 8088; 0 picks a free one)
  --host <address>       address to bind (default 127.0.0.1)
  --topic <name>         the events topic (default: ${DEFAULT_EVENTS_TOPIC}, or HOOKSTREAM_EVENTS_TOPIC)
  --jaeger <url>         Jaeger's query UI for trace links (default JAEGER_QUERY_URL, else the local stack's)
  --public-origin <url>  also accept this origin (behind a reverse proxy), e.g. https://ops.example.com`;

/** `hookstream console`: serves the console until SIGINT/SIGTERM. */
export async function consoleCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      port: { type: 'string', default: '8088' },
      host: { type: 'string', default: '127.0.0.1' },
      topic: { type: 'string' },
      jaeger: { type: 'string' },
      'public-origin': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${CONSOLE_USAGE}\n`);
    return 0;
  }
  try {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new ConsoleError('BAD_OPTION', `--port: '${values.port}' is not a port`, false);
    const env = toolEnv();
    const tokens = parseConsoleTokens(env.CONSOLE_TOKENS);
    const eventsTopic = values.topic ?? env.HOOKSTREAM_EVENTS_TOPIC;
    const jaegerUrl = (values.jaeger ?? jaegerQueryUrl()).replace(/\/+$/, '');
    // Replays from the console are traced like `dlq replay`'s.
    const tracing = await startTracing({ serviceName: 'hookstream-replay' });
    const kafka = toolKafka('hookstream-console');
    const log = (level: string, message: string, fields?: Record<string, unknown>) =>
      process.stderr.write(`hookstream console: ${level}: ${message} ${JSON.stringify(fields ?? {})}\n`);
    // Followed for the console's life, as the API's: a page reads the catalog without a topic scan.
    const catalog = new LiveCatalog(kafka, (level, message, fields) => {
      if (level !== 'debug') log(level, message, fields);
    });
    await catalog.start();
    try {
      const service = new ManagementService(
        kafkaPorts({
          kafka,
          catalog,
          eventsTopic,
          secretsKey: undefined,
          openPublisher: () => openNoticePublisher('console', eventsTopic),
        }),
      );
      const backend = new KafkaConsoleBackend({
        kafka,
        service,
        catalog,
        eventsTopic,
        jaegerUrl,
        tools: {
          readDeadLetters,
          findTraceIds: async (url, id) => (await findEventTraces(url, id)).map((t) => t.traceID),
        },
      });
      const server = new ConsoleServer({
        backend,
        tokens,
        host: values.host,
        port,
        ...(values['public-origin'] === undefined ? {} : { publicOrigins: values['public-origin'] }),
        log,
        onError: (err, r) =>
          process.stderr.write(
            `hookstream console: ${r.method} ${r.path}: ${err instanceof Error ? err.message : String(err)}\n`,
          ),
      });
      const url = await server.start();
      process.stdout.write(`hookstream console on ${url} (log in with a CONSOLE_TOKENS token)\n`);
      await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      await server.close();
    } finally {
      await catalog.stop();
      await tracing.shutdown().catch(() => undefined);
    }
    return 0;
  } catch (err) {
    return reportToolError('console', err);
  }
}
