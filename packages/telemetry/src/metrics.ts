import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { diag, type Meter, type MetricOptions } from '@opentelemetry/api';
import type { SampledIds } from './delivery-spans.ts';
import { ExemplarBook, OPENMETRICS_CONTENT_TYPE, toOpenMetrics, wantsOpenMetrics } from './openmetrics.ts';

export type { Meter } from '@opentelemetry/api';

export interface Metrics {
  /** Instruments are created from this meter; labels must stay low-cardinality (no event ids). */
  readonly meter: Meter;
  /**
   * Answers a scrape, for a service's own HTTP server: in Prometheus text format, or in
   * OpenMetrics with exemplars when the scraper's Accept header prefers it.
   */
  handle(req: IncomingMessage, res: ServerResponse): void;
  shutdown(): Promise<void>;
}

/** The exemplars kept for the meters startMetrics made; any other meter keeps none. */
const books = new WeakMap<Meter, ExemplarBook>();

/**
 * OpenTelemetry metrics read out at scrape time (pull, no push), in Prometheus text format, or
 * OpenMetrics for a scraper that asks for it (openmetrics.ts). The metrics SDK is loaded here, not
 * when the package is: a pusher without --metrics-port never holds it.
 */
export async function startMetrics(options: { readonly serviceName: string }): Promise<Metrics> {
  const [{ PrometheusExporter, PrometheusSerializer }, { resourceFromAttributes }, { MeterProvider }] =
    await Promise.all([
      import('@opentelemetry/exporter-prometheus'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-metrics'),
    ]);
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    readers: [exporter],
  });
  const meter = provider.getMeter('hookstream');
  const book = new ExemplarBook();
  books.set(meter, book);
  // The exporter's own settings (its defaults), so both formats carry the same samples.
  const serializer = new PrometheusSerializer();
  return {
    meter,
    handle: (req, res) => {
      if (!wantsOpenMetrics(req.headers.accept)) return exporter.getMetricsRequestHandler(req, res);
      exporter.collect().then(
        ({ resourceMetrics, errors }) => {
          // As the exporter's own handler: what could be collected is served, the rest logged.
          if (errors.length > 0) diag.error('metrics: collection errors', ...errors);
          const text = toOpenMetrics(serializer.serialize(resourceMetrics), book);
          res.writeHead(200, { 'content-type': OPENMETRICS_CONTENT_TYPE }).end(text);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`failed to collect metrics: ${err}\n`);
        },
      );
    },
    shutdown: () => provider.shutdown(),
  };
}

/** A monotonic counter whose series carry exemplars in the OpenMetrics exposition. */
export interface ExemplarCounter {
  /**
   * Adds to the series of `attributes`; with `exemplar` (the ids of a sampled span), that
   * increment becomes the series' exemplar. Pass ids only of spans that are sampled: an exemplar
   * must name a trace that exists.
   */
  add(value: number, attributes: Readonly<Record<string, string>>, exemplar?: SampledIds): void;
}

/**
 * A counter of `meter` whose last traced increment per series is its exemplar, for a meter from
 * startMetrics; with any other meter (a no-op one, a test's) it is a plain counter.
 */
export function exemplarCounter(meter: Meter, name: string, options: MetricOptions): ExemplarCounter {
  const counter = meter.createCounter(name, options);
  const book = books.get(meter);
  return {
    add: (value, attributes, exemplar) => {
      counter.add(value, attributes);
      if (exemplar !== undefined && book !== undefined) book.record(name, attributes, exemplar, value);
    },
  };
}

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** A tiny HTTP server with GET /metrics, for processes (pushers) that serve nothing else. */
export async function serveMetrics(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  // Not an ESM import of node:http: that evaluates its lazy WebSocket exports, which load Node's
  // bundled undici (~8 MB RSS) into a process that never uses it.
  const { createServer } = process.getBuiltinModule('node:http');
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') return metrics.handle(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
