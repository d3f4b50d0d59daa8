import { createServer, type Server } from 'node:http';
import { describeConnection, loadEventCatalog } from '@hookstream/contracts';
import { IngressHttp, TokenTable } from '@hookstream/ingress-http';
import { createKafka, probeCluster } from '@hookstream/kafka';
import { EventProducer, RegistryHttp } from '@hookstream/producer';
import {
  createLogger,
  type Logger,
  type MetricsServer,
  observeSpanExport,
  serveMetrics,
  startMetrics,
  type Tracing,
} from '@hookstream/telemetry';
import { type IngressConfig, IngressConfigError } from './config.ts';

export interface RunningIngress {
  /** e.g. http://127.0.0.1:8080 (the real port when 0 was asked for). */
  readonly url: string;
  readonly port: number;
  /** GET /metrics on its own listener, when INGRESS_METRICS_PORT asked for one. */
  readonly metricsUrl?: string;
  /** Graceful: stop accepting, finish in-flight requests, flush the producer, disconnect. */
  close(): Promise<void>;
}

/** How long shutdown waits for in-flight requests before cutting connections. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Wires config to the topic, the producer and the HTTP server; resolves once listening. */
export async function startIngress(
  config: IngressConfig,
  logger: Logger = createLogger({ name: 'hookstream-ingress', level: config.logLevel }),
  /** The process's tracing, whose held and dropped spans /metrics then shows. */
  tracing?: Tracing,
): Promise<RunningIngress> {
  const catalog = loadEventCatalog();
  let tokens: TokenTable | null = null;
  if (!config.demo) {
    try {
      tokens = TokenTable.parse(config.tokenEntries, new Set(catalog.keys()));
    } catch (err) {
      throw new IngressConfigError(`INGRESS_TOKENS: ${(err as Error).message}`);
    }
  } else {
    logger.warn('demo mode: no tokens configured, every request may publish every event type');
  }
  await provisionTopic(config);
  // Its own MeterProvider (not the global one), so ingresses in one test process stay apart.
  const metrics = await startMetrics({ serviceName: 'hookstream-ingress' });
  if (tracing) observeSpanExport(metrics.meter, tracing);
  const producer = await EventProducer.start({
    kafka: config.connection.kafka,
    registry: config.connection.registry,
    source: config.source,
    topic: config.topic,
    clientId: 'hookstream-ingress',
    ackTimeoutMs: config.ackTimeoutMs,
    dedupWindowMs: config.dedupWindowMs,
    dedupMaxEntries: config.dedupMaxEntries,
    // Each token its own share of the window (demo mode: one producer).
    dedupProducers: tokens?.size ?? 1,
    maxQueuedRecords: config.queueMaxRecords,
    maxQueuedBytes: config.queueMaxBytes,
    catalog,
    meter: metrics.meter,
  }).catch(async (err: unknown) => {
    await metrics.shutdown();
    throw err;
  });
  const registryHttp = new RegistryHttp(config.connection.registry);
  const http = new IngressHttp({
    producer,
    tokens,
    maxBodyBytes: config.maxBodyBytes,
    retryAfterS: config.retryAfterS,
    checkReady: () => checkReady(config, registryHttp),
    ...(config.rateLimit === null ? {} : { rateLimit: config.rateLimit }),
    logger,
    metrics,
    onError: (err, req) => {
      const fields = { err, method: req.method, url: req.url };
      if ((err as { canRetry?: boolean }).canRetry)
        logger.warn(fields, 'publish not acknowledged: answered 503');
      else logger.error(fields, 'request failed');
    },
  });
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // Node checks both timeouts only this often (default 30 s): a slow client would get that long.
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    http.handle,
  );
  // Beyond it, new connections are closed at once rather than each holding a socket and memory.
  server.maxConnections = config.maxConnections;
  let metricsServer: MetricsServer | undefined;
  try {
    await listen(server, config.host, config.port);
    if (config.metrics !== null)
      metricsServer = await serveMetrics(metrics, config.metrics.host, config.metrics.port);
  } catch (err) {
    server.close();
    await producer.close();
    await metrics.shutdown();
    registryHttp.close();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  logger.info(
    {
      url,
      metrics: metricsServer?.url ?? null,
      topic: config.topic,
      types: [...catalog.keys()],
      connection: describeConnection(config.connection),
    },
    'ingress listening',
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    ...(metricsServer === undefined ? {} : { metricsUrl: metricsServer.url }),
    close: () => {
      closing ??= (async () => {
        logger.info('ingress stopping: draining in-flight requests');
        http.drain();
        await stopServer(server);
        await metricsServer?.close();
        await producer.close();
        await metrics.shutdown();
        registryHttp.close();
        logger.info('ingress stopped');
      })();
      return closing;
    },
  };
}

async function provisionTopic(config: IngressConfig): Promise<void> {
  const admin = createKafka({
    ...config.connection.kafka,
    clientId: 'hookstream-ingress-admin',
    quiet: true,
  }).admin();
  await admin.connect();
  try {
    await admin.ensureTopics([
      {
        topic: config.topic,
        partitions: config.topicPartitions,
        replicationFactor: config.topicReplication,
        config: {
          'retention.ms': String(config.topicRetentionMs),
          'cleanup.policy': 'delete',
          'min.insync.replicas': String(Math.min(2, config.topicReplication)),
        },
      },
    ]);
  } finally {
    await admin.disconnect();
  }
}

async function checkReady(
  config: IngressConfig,
  registryHttp: RegistryHttp,
): Promise<Record<string, boolean>> {
  const [kafka, registry] = await Promise.all([
    probeCluster(config.connection.kafka, 1000).then((info) => info !== null),
    registryHttp.get('/subjects', { timeoutMs: 1000, maxBytes: 1024 * 1024 }).then(
      (r) => r.status >= 200 && r.status < 300,
      () => false,
    ),
  ]);
  return { kafka, registry };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

async function stopServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  try {
    await closed;
  } finally {
    clearTimeout(grace);
  }
}
