import { randomBytes, randomUUID } from 'node:crypto';
import { ApiServer, ApiTokens } from '@hookstream/api';
import { type ConnectionSettings, SubscriberDefinition } from '@hookstream/contracts';
import { createKafka } from '@hookstream/kafka';
import { kafkaPorts, ManagementService } from '@hookstream/management';
import { LiveCatalog, recordOfDefinition, SubscriberCatalog } from '@hookstream/subscribers';
import { quantile } from './stats.ts';

export interface ApiBenchOptions {
  readonly connection: ConnectionSettings;
  /** The bench's own subscribers in the catalog, one tenant's (1,000 for the report's figure). */
  readonly subscribers: number;
  /** Requests per read route, one at a time. */
  readonly requests: number;
  /** Conditional PUTs, one at a time, each changing a record. */
  readonly writes: number;
  readonly report: (line: string) => void;
}

export interface LatencySummary {
  readonly count: number;
  readonly errors: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface ApiBenchResult {
  readonly subscribers: number;
  /** Every subscriber the catalog held while it ran (the bench's and whatever else was there). */
  readonly catalogSubscribers: number;
  /**
   * GET /v1/subscribers, the first page (100) of the tenant's, asked again and again as a
   * dashboard polls it: its measured figures come from a read at most 2 s old (10 s at most).
   */
  readonly list: LatencySummary;
  /** GET /v1/subscribers after a random cursor: another page almost every time, measured afresh. */
  readonly listOtherPages: LatencySummary;
  /** GET /v1/subscribers/{name}, a random one of the tenant's each time. */
  readonly get: LatencySummary;
  /** PUT /v1/subscribers/{name} with If-Match, a changed URL each time (a real write). */
  readonly put: LatencySummary;
}

const WRITE_BATCH = 250;
const WARM_UP = 10;

/**
 * `hookstream bench api`: the management API in this process (LiveCatalog, ManagementService,
 * ApiServer on loopback, as `hookstream api` wires them) against the stack, with `subscribers`
 * records of one tenant written to the catalog first. Measures the list, a read and a
 * conditional replace over HTTP, one request at a time, then tombstones what it wrote.
 */
export async function runApiBench(options: ApiBenchOptions): Promise<ApiBenchResult> {
  const { connection, report } = options;
  const run = randomUUID().slice(0, 8);
  const tenant = `bench-api-${run}`;
  const names = Array.from(
    { length: options.subscribers },
    (_, i) => `${tenant}-${String(i).padStart(5, '0')}`,
  );
  const kafka = createKafka({ ...connection.kafka, clientId: 'hookstream-bench-api', quiet: true });
  // An events topic of its own, so a page measures each subscriber's ledger there, as in a fleet.
  const eventsTopic = `bench-api-events-${run}`;
  const admin = kafka.admin();
  const catalog = new SubscriberCatalog(kafka);
  const live = new LiveCatalog(kafka, () => undefined);
  const token = randomBytes(18).toString('base64url');
  const service = new ManagementService(
    kafkaPorts({
      kafka,
      catalog: live,
      eventsTopic,
      secretsKey: undefined,
      openPublisher: async () => {
        throw new Error('the bench resumes no subscriber');
      },
    }),
  );
  const server = new ApiServer({
    service,
    tokens: ApiTokens.parse([`${token}@${tenant}`]),
    host: '127.0.0.1',
    port: 0,
    ratePerSecond: 100_000,
  });
  await admin.connect();
  try {
    await admin.ensureTopics([{ topic: eventsTopic, partitions: 3, replicationFactor: 1 }]);
    report(`writing ${names.length} subscribers of tenant ${tenant}`);
    for (let i = 0; i < names.length; i += WRITE_BATCH)
      await catalog.write(
        names
          .slice(i, i + WRITE_BATCH)
          .map((name) =>
            recordOfDefinition(
              SubscriberDefinition.parse({ name, tenant, url: `https://${name}.example.com/hook` }),
              new Date(),
            ),
          ),
      );
    await live.start();
    const base = await server.start();
    const call = async (method: string, path: string, body?: unknown, ifMatch?: string) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (ifMatch !== undefined) headers['if-match'] = ifMatch;
      const started = performance.now();
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { ms: performance.now() - started, status: res.status, etag: res.headers.get('etag'), text };
    };
    const pick = () => names[Math.floor(Math.random() * names.length)] as string;
    for (let i = 0; i < WARM_UP; i++) {
      await call('GET', '/v1/subscribers');
      await call('GET', `/v1/subscribers/${pick()}`);
    }
    const warm = pick();
    const current = await call('GET', `/v1/subscribers/${warm}`);
    await call(
      'PUT',
      `/v1/subscribers/${warm}`,
      { url: `https://${warm}.example.com/warm` },
      current.etag ?? undefined,
    );
    const catalogSubscribers = (await live.read()).subscribers.size;

    report(`GET /v1/subscribers x ${options.requests}`);
    const list = await measure(options.requests, () => call('GET', '/v1/subscribers'), 200);
    report(`GET /v1/subscribers?cursor=<a random name> x ${options.requests}`);
    const listOtherPages = await measure(
      options.requests,
      () => call('GET', `/v1/subscribers?cursor=${encodeURIComponent(pick())}`),
      200,
    );
    report(`GET /v1/subscribers/{name} x ${options.requests}`);
    const get = await measure(options.requests, () => call('GET', `/v1/subscribers/${pick()}`), 200);
    report(`PUT /v1/subscribers/{name} with If-Match x ${options.writes}`);
    let n = 0;
    const put = await measure(
      options.writes,
      async () => {
        const name = pick();
        const current = await call('GET', `/v1/subscribers/${name}`);
        n++;
        return call(
          'PUT',
          `/v1/subscribers/${name}`,
          { url: `https://${name}.example.com/hook/${n}` },
          current.etag ?? undefined,
        );
      },
      200,
    );
    return { subscribers: names.length, catalogSubscribers, list, listOtherPages, get, put };
  } finally {
    await server.close().catch(() => undefined);
    await live.stop().catch(() => undefined);
    report(`tombstoning the ${names.length} subscribers, deleting ${eventsTopic}`);
    await catalog.tombstone(names);
    await admin.deleteTopics([eventsTopic]).catch(() => undefined);
    await admin.disconnect();
  }
}

/** `count` calls one after the other; the time of each, its status checked against `ok`. */
async function measure(
  count: number,
  once: () => Promise<{ readonly ms: number; readonly status: number; readonly text: string }>,
  ok: number,
): Promise<LatencySummary> {
  const times: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  for (let i = 0; i < count; i++) {
    const answer = await once();
    times.push(answer.ms);
    if (answer.status !== ok) {
      errors++;
      firstError ??= `${answer.status} ${answer.text.slice(0, 300)}`;
    }
  }
  if (firstError !== null)
    process.stderr.write(`bench: ${errors} answers not ${ok}, the first: ${firstError}\n`);
  const sorted = times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    count,
    errors,
    p50Ms: round(quantile(sorted, 0.5)),
    p95Ms: round(quantile(sorted, 0.95)),
    p99Ms: round(quantile(sorted, 0.99)),
    maxMs: round(sorted.at(-1) ?? 0),
  };
}
