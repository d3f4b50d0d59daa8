import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Meter } from '@opentelemetry/api';

export type { Meter } from '@opentelemetry/api';

export interface Metrics {
  /** Instruments are created from this meter; labels must stay low-cardinality (no event ids). */
  readonly meter: Meter;
  /** Answers a scrape in Prometheus text format, for a service's own HTTP server. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry metrics read out in Prometheus text format at scrape time (pull, no push). The
 * metrics SDK is loaded here, not when the package is: a pusher without --metrics-port never
 * holds it.
 */
export async function startMetrics(options: { readonly serviceName: string }): Promise<Metrics> {
  const [{ PrometheusExporter }, { resourceFromAttributes }, { MeterProvider }] = await Promise.all([
    import('@opentelemetry/exporter-prometheus'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    readers: [exporter],
  });
  return {
    meter: provider.getMeter('hookstream'),
    handle: (req, res) => exporter.getMetricsRequestHandler(req, res),
    shutdown: () => provider.shutdown(),
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
