import { KeepAliveConnection, postRequest } from './keep-alive-connection.ts';
import { kibEvent } from './payload.ts';
import { type BenchRow, summarize } from './stats.ts';

interface LoadOptions {
  readonly url: string;
  readonly token: string;
  readonly events: number;
  readonly concurrency: number;
  /** 1: POST /v1/events; more: POST /v1/events/batch with that many events. */
  readonly eventsPerRequest: number;
  readonly deadlineMs: number;
}

/** Keeps `concurrency` requests in flight (one per connection) until `events` were accepted. */
export async function httpLoad(options: LoadOptions): Promise<BenchRow> {
  const { hostname, port } = new URL(options.url);
  const batch = options.eventsPerRequest > 1;
  const path = batch ? '/v1/events/batch' : '/v1/events';
  const latencies: number[] = [];
  let next = 0;
  let accepted = 0;
  let errors = 0;
  // Requests are built once per key (1000 of them), as wrk would replay them: the generator
  // shares two cores with the ingress and the broker, and should spend its share on sending.
  const built = new Map<string, Buffer>();
  const requestFor = (first: number, n: number): Buffer => {
    const cacheKey = `${first % 1000}/${n}`;
    let request = built.get(cacheKey);
    if (request === undefined) {
      const items = Array.from({ length: n }, (_, i) => kibEvent(first + i));
      const body = JSON.stringify(batch ? { events: items } : items[0]);
      request = postRequest(hostname, Number(port), path, options.token, body);
      built.set(cacheKey, request);
    }
    return request;
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      const connection = new KeepAliveConnection(hostname, Number(port));
      try {
        while (next < options.events && performance.now() - started < options.deadlineMs) {
          const n = Math.min(options.eventsPerRequest, options.events - next);
          const first = next;
          next += n;
          const request = requestFor(first, n);
          const t0 = performance.now();
          const status = await connection.send(request);
          if (status === 202) {
            latencies.push(performance.now() - t0);
            accepted += n;
          } else {
            errors += n;
            if (status === 0) break;
          }
        }
      } finally {
        connection.close();
      }
    }),
  );
  const name = batch
    ? `HTTP ingress, batches of ${options.eventsPerRequest}`
    : 'HTTP ingress, one event per request';
  return summarize(
    name,
    options.concurrency,
    options.eventsPerRequest,
    latencies,
    accepted,
    errors,
    performance.now() - started,
  );
}
