import { Agent, request } from 'node:http';
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

/** Keeps `concurrency` requests in flight over keep-alive connections until `events` were accepted. */
export async function httpLoad(options: LoadOptions): Promise<BenchRow> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const batch = options.eventsPerRequest > 1;
  const path = batch ? '/v1/events/batch' : '/v1/events';
  const latencies: number[] = [];
  let next = 0;
  let accepted = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.events && performance.now() - started < options.deadlineMs) {
        const n = Math.min(options.eventsPerRequest, options.events - next);
        const first = next;
        next += n;
        const items = Array.from({ length: n }, (_, i) => kibEvent(first + i));
        const body = JSON.stringify(batch ? { events: items } : items[0]);
        const t0 = performance.now();
        const status = await post(agent, options.url, path, options.token, body);
        if (status === 202) {
          latencies.push(performance.now() - t0);
          accepted += n;
        } else {
          errors += n;
        }
      }
    }),
  );
  agent.destroy();
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

function post(agent: Agent, url: string, path: string, token: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
