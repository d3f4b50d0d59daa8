import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Meter } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';

export type { Meter } from '@opentelemetry/api';

export interface Metrics {
  /** Instruments are created from this meter; labels must stay low-cardinality (no event ids). */
  readonly meter: Meter;
  /** Answers a scrape in Prometheus text format, for a service's own HTTP server. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  shutdown(): Promise<void>;
}

/** OpenTelemetry metrics read out in Prometheus text format at scrape time (pull, no push). */
export function startMetrics(options: { readonly serviceName: string }): Metrics {
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
