import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ConnectionSettings, DEFAULT_BREAKER } from '@hookstream/contracts';
import { removeBenchSubscribers, removeBenchTopics } from './bench-topic.ts';
import { inProcessPusher, listenOnLoopback } from './in-process-pusher.ts';
import { produceBacklog } from './push-bench.ts';

export interface OutageBenchOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  /** Events waiting when the outage begins. */
  readonly events: number;
  /** How long the endpoint answers 503 before it recovers. */
  readonly outageMs: number;
  /** The breaker's probe interval (the subscriber default unless given). */
  readonly probeIntervalMs: number;
}

/** One run: the same backlog, the same outage, the breaker on or off. */
export interface OutageRun {
  readonly breaker: boolean;
  /** Requests the endpoint received while it was down. */
  readonly requestsDuringOutage: number;
  /** From recovery to the first 2xx answer. */
  readonly firstDeliveryAfterRecoveryMs: number;
  /** From recovery until every event was accepted. */
  readonly drainMs: number;
  readonly accepted: number;
  /** Events accepted more than once (at least once allows it; the count says how often). */
  readonly duplicates: number;
  readonly deadLettered: number;
}

export interface OutageBenchResult {
  readonly events: number;
  readonly outageMs: number;
  readonly probeIntervalMs: number;
  readonly withBreaker: OutageRun;
  readonly withoutBreaker: OutageRun;
  /** 1 − with/without: the share of requests the breaker spared the dead endpoint. */
  readonly requestsSpared: number;
}

/** Retry tiers a subscriber might set for an endpoint that can be down for minutes. */
const TIERS_MS = [1000, 5000, 15_000, 30_000];

/**
 * What a dead endpoint receives during an outage with the breaker and without it: `events`
 * wait when the endpoint starts answering 503; after `outageMs` it accepts everything. Both runs
 * count the requests it got while down, the time to the first delivery after it came back, and
 * whether every event arrived (nothing dead-lettered).
 */
export async function benchOutage(
  options: OutageBenchOptions,
  progress: (line: string) => void,
): Promise<OutageBenchResult> {
  const withBreaker = await outageRun(options, true, progress);
  const withoutBreaker = await outageRun(options, false, progress);
  return {
    events: options.events,
    outageMs: options.outageMs,
    probeIntervalMs: options.probeIntervalMs,
    withBreaker,
    withoutBreaker,
    requestsSpared:
      withoutBreaker.requestsDuringOutage === 0
        ? 0
        : 1 - withBreaker.requestsDuringOutage / withoutBreaker.requestsDuringOutage,
  };
}

async function outageRun(
  options: OutageBenchOptions,
  breaker: boolean,
  progress: (line: string) => void,
): Promise<OutageRun> {
  const endpoint = new OutageEndpoint();
  const url = await endpoint.listen();
  const topic = `hookstream.bench.${randomBytes(4).toString('hex')}`;
  const name = `outage-${breaker ? 'on' : 'off'}-${randomBytes(3).toString('hex')}`;
  await produceBacklog({ ...options, events: options.events, concurrency: 1, partitions: 3 }, topic);
  const pusher = inProcessPusher({
    ...options,
    topic,
    definition: {
      name,
      url,
      rate: { perSecond: 1000, burst: 0 },
      concurrency: 16,
      retry: { delaysMs: TIERS_MS, maxAttempts: 1000, maxAgeMs: 3_600_000, jitter: 0.2 },
      breaker: { ...DEFAULT_BREAKER, enabled: breaker, probeIntervalMs: options.probeIntervalMs },
    },
  });
  const label = breaker ? 'with the breaker' : 'without the breaker';
  try {
    endpoint.down = true;
    await pusher.start();
    const recoverAt = Date.now() + options.outageMs;
    while (Date.now() < recoverAt) {
      progress(
        `${label}: down, ${endpoint.refused} requests so far, ${Math.ceil((recoverAt - Date.now()) / 1000)} s left`,
      );
      await sleep(Math.min(15_000, Math.max(0, recoverAt - Date.now())));
    }
    endpoint.down = false;
    const recoveredAt = Date.now();
    const deadline = recoveredAt + 120_000 + Math.max(...TIERS_MS) * 2;
    while (endpoint.acceptedIds.size < options.events) {
      if (Date.now() > deadline)
        throw new Error(`${label}: only ${endpoint.acceptedIds.size} of ${options.events} accepted in time`);
      await sleep(100);
    }
    const run: OutageRun = {
      breaker,
      requestsDuringOutage: endpoint.refused,
      firstDeliveryAfterRecoveryMs: (endpoint.firstAcceptedAt ?? recoveredAt) - recoveredAt,
      drainMs: (endpoint.lastNewAcceptedAt ?? recoveredAt) - recoveredAt,
      accepted: endpoint.acceptedIds.size,
      duplicates: endpoint.acceptedTotal - endpoint.acceptedIds.size,
      deadLettered: pusher.counts.deadLettered,
    };
    progress(
      `${label}: ${run.requestsDuringOutage} requests while down; all ${run.accepted} accepted ${run.drainMs} ms after recovery`,
    );
    return run;
  } finally {
    await pusher.stop();
    await endpoint.close();
    await removeBenchSubscribers(options.connection.kafka, [name]);
    await removeBenchTopics(options.connection.kafka, [topic]);
  }
}

/** An endpoint that answers 503 while `down`, then 204, counting what it gets. */
class OutageEndpoint {
  down = false;
  refused = 0;
  acceptedTotal = 0;
  readonly acceptedIds = new Set<string>();
  firstAcceptedAt: number | undefined;
  lastNewAcceptedAt: number | undefined;
  readonly #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (this.down) {
        this.refused++;
        res.writeHead(503).end();
        return;
      }
      const { event_id: id } = JSON.parse(Buffer.concat(chunks).toString()) as { event_id: string };
      const now = Date.now();
      this.firstAcceptedAt ??= now;
      this.acceptedTotal++;
      if (!this.acceptedIds.has(id)) {
        this.acceptedIds.add(id);
        this.lastNewAcceptedAt = now;
      }
      res.writeHead(204).end();
    });
  });

  listen(): Promise<string> {
    return listenOnLoopback(this.#server);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}
