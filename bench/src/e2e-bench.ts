import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionSettings } from '@hookstream/contracts';
import { ArrivalWatch, waitForArrivals } from './arrival-watch.ts';
import { benchSubscriberName, withBenchTopic } from './bench-topic.ts';
import { EventPublisher } from './event-publisher.ts';
import { bucketQuantileMs, bucketsSince, histogramBuckets } from './histogram-scrape.ts';
import { spawnIngress } from './ingress-child.ts';
import { epochNow, openLoop } from './open-loop.ts';
import { startChildUsage } from './proc-usage.ts';
import { spawnPusher } from './pusher-child.ts';
import { startReceiverThread } from './receiver-thread.ts';
import { type LatencySummary, summarizeLatencies } from './stats.ts';

export interface E2eBenchOptions {
  /** Kafka and the registry, as every component takes them (TLS and SASL included). */
  readonly connection: ConnectionSettings;
  /** Events of the maximum-load run. */
  readonly events: number;
  /** Length of the paced run. */
  readonly halfLoadSeconds: number;
  /** Rate of the paced run, events/s; default half of the maximum load just measured. */
  readonly pacedPerSecond?: number;
  /** Connections to the ingress, and the pusher's concurrency (default 64). */
  readonly concurrency?: number;
  readonly progress: (line: string) => void;
}

export interface E2eBenchResult {
  readonly concurrency: number;
  /** As fast as the pipeline goes: first publish to last distinct arrival. */
  readonly maxLoad: {
    readonly events: number;
    readonly delivered: number;
    readonly seconds: number;
    readonly eventsPerSecond: number;
    /** Each process's CPU (/proc) over the run until the last arrival ÷ events delivered, µs. */
    readonly ingressCpuMicrosPerEvent: number;
    readonly pusherCpuMicrosPerEvent: number;
    /** Each process's peak RSS growth over the run ÷ requests in flight (the concurrency), KiB. */
    readonly ingressRssKiBPerInFlight: number;
    readonly pusherRssKiBPerInFlight: number;
  };
  /**
   * Paced (open loop) at half of maxLoad.eventsPerSecond, or at pacedPerSecond; latency = arrival −
   * scheduled publish.
   */
  readonly halfLoad: {
    readonly targetPerSecond: number;
    readonly events: number;
    readonly delivered: number;
    readonly publishErrors: number;
    readonly latency: LatencySummary;
    /**
     * The same events' latency in two parts: scheduled publish → the ingress's 202 (HTTP, validation,
     * Kafka's acks=all), and that 202 → arrival (fetch, delivery). An arrival can come before
     * the 202 reaches the publisher, so the second part can be negative.
     */
    readonly untilAccepted: LatencySummary;
    /**
     * The first part split where the request went out: scheduled publish → written (the load
     * generator: its event loop late, or all its connections busy) and written → 202 (the ingress).
     */
    readonly untilWritten: LatencySummary;
    readonly writtenToAccepted: LatencySummary;
    readonly acceptedToArrival: LatencySummary;
    /**
     * Inside the ingress, from its own histogram (request received → Kafka acknowledged, the
     * single-event route) over the paced run: the upper bounds, ms, of the buckets holding p50,
     * p90 and p99 (Infinity past the last bound; null when nothing was observed). What written →
     * 202 holds besides is the sockets, the two event loops' waits and the answer's way back.
     */
    readonly inIngress: IngressTimes;
  };
  readonly duplicates: number;
}

export interface IngressTimes {
  readonly requests: number;
  readonly p50AtMostMs: number | null;
  readonly p90AtMostMs: number | null;
  readonly p99AtMostMs: number | null;
}

const PRODUCE_DURATION = 'hookstream_ingress_produce_duration_seconds';
const SINGLE_ROUTE = { http_route: '/v1/events' };

/**
 * Ingress → Kafka → pusher → receiver, each as production runs it: the ingress and the pusher
 * in processes of their own, the sample receiver (signature check, dedupe) on a thread of this
 * process, so that it neither delays the load generator nor waits for it, and the publish and
 * arrival times are read from one clock.
 */
export async function runE2eBench(options: E2eBenchOptions): Promise<E2eBenchResult> {
  const concurrency = options.concurrency ?? 64;
  const name = benchSubscriberName('e2e');
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const token = `bench-${randomUUID()}`;
  const receiver = await startReceiverThread(secret);
  const { url } = receiver;
  const dir = await mkdtemp(join(tmpdir(), 'hookstream-bench-'));
  try {
    return await withBenchTopic(options.connection.kafka, 6, [name], async (topic) => {
      const ingress = await spawnIngress({ ...options, topic, token, metrics: true });
      const pusher = await spawnPusher({
        ...options,
        topic,
        dir,
        secretEnv: { HOOKSTREAM_SECRET_BENCH_E2E: secret },
        definition: {
          name,
          url: `${url}/`,
          rate: { perSecond: 100_000, burst: 0 },
          concurrency,
          timeoutMs: 10_000,
          start: 'earliest',
          ordering: 'none',
          secret: { env: 'HOOKSTREAM_SECRET_BENCH_E2E' },
          allowPrivateNetwork: true,
        },
      });
      const publisher = new EventPublisher(ingress.url, token, concurrency);
      try {
        const watch = new ArrivalWatch(receiver.arrivals);
        // Warm-up: connections, schema ids, JIT, the pusher's first fetches.
        const warm = Math.min(200, options.events);
        await closedLoop(publisher, 'warm', warm, concurrency);
        await waitForArrivals(() => watch.update(), warm, 'warm-up');

        options.progress(`end to end, maximum load: ${options.events} events, ${concurrency} at a time…`);
        const base = watch.update();
        const usage = await Promise.all([startChildUsage(ingress.pid), startChildUsage(pusher.pid)]);
        const started = epochNow();
        const max = await closedLoop(publisher, 'max', options.events, concurrency);
        const delivered =
          (await waitForArrivals(() => watch.update(), base + max.accepted, 'maximum load')) - base;
        let lastArrival = started;
        for (const at of watch.first.values()) lastArrival = Math.max(lastArrival, at);
        const [ingressUsage, pusherUsage] = await Promise.all(usage.map((u) => u.end()));
        const seconds = (lastArrival - started) / 1000;
        const maxRate = seconds > 0 ? delivered / seconds : 0;
        const perEvent = (micros: number) => Math.round((micros / Math.max(1, delivered)) * 10) / 10;
        const perInFlight = (bytes: number) => Math.round((bytes / 1024 / concurrency) * 10) / 10;

        const target = options.pacedPerSecond ?? Math.max(1, maxRate / 2);
        const count = Math.max(1, Math.round(target * options.halfLoadSeconds));
        options.progress(`end to end, paced: ${Math.round(target)} events/s for ${count} events…`);
        const before = watch.update();
        const ingressBefore = await produceBuckets(ingress.metricsUrl);
        const run = randomUUID().slice(0, 8);
        const written = new Map<string, number>();
        const half = await openLoop(
          count,
          target,
          (n) => `half-${run}-${n}`,
          async (id, n) => (await publisher.publish(id, n, () => written.set(id, epochNow()))) === 202,
        );
        const inIngress = ingressTimes(bucketsSince(ingressBefore, await produceBuckets(ingress.metricsUrl)));
        await waitForArrivals(() => watch.update(), before + half.accepted, 'half load');
        const latencies: number[] = [];
        const untilAccepted: number[] = [];
        const untilWritten: number[] = [];
        const writtenToAccepted: number[] = [];
        const acceptedToArrival: number[] = [];
        for (const [id, at] of half.scheduled) {
          const arrived = watch.first.get(id);
          if (arrived === undefined) continue;
          latencies.push(arrived - at);
          const answered = half.answered.get(id);
          if (answered === undefined) continue;
          untilAccepted.push(answered - at);
          acceptedToArrival.push(arrived - answered);
          const out = written.get(id);
          if (out === undefined) continue;
          untilWritten.push(out - at);
          writtenToAccepted.push(answered - out);
        }
        return {
          concurrency,
          maxLoad: {
            events: options.events,
            delivered,
            seconds: Math.round(seconds * 100) / 100,
            eventsPerSecond: Math.round(maxRate),
            ingressCpuMicrosPerEvent: perEvent(ingressUsage?.cpuMicros ?? 0),
            pusherCpuMicrosPerEvent: perEvent(pusherUsage?.cpuMicros ?? 0),
            ingressRssKiBPerInFlight: perInFlight(ingressUsage?.rssGrowthBytes ?? 0),
            pusherRssKiBPerInFlight: perInFlight(pusherUsage?.rssGrowthBytes ?? 0),
          },
          halfLoad: {
            targetPerSecond: Math.round(target),
            events: count,
            delivered: latencies.length,
            publishErrors: count - half.accepted,
            latency: summarizeLatencies(latencies),
            untilAccepted: summarizeLatencies(untilAccepted),
            untilWritten: summarizeLatencies(untilWritten),
            writtenToAccepted: summarizeLatencies(writtenToAccepted),
            acceptedToArrival: summarizeLatencies(acceptedToArrival),
            inIngress,
          },
          duplicates: watch.duplicates,
        };
      } finally {
        publisher.close();
        await pusher.stop();
        await ingress.stop();
      }
    });
  } finally {
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `count` events as fast as `concurrency` connections go; returns how many got a 202. */
async function closedLoop(
  publisher: EventPublisher,
  label: string,
  count: number,
  concurrency: number,
): Promise<{ accepted: number }> {
  const run = randomUUID().slice(0, 8);
  let next = 0;
  let accepted = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next++;
        if ((await publisher.publish(`${label}-${run}-${n}`, n)) === 202) accepted++;
      }
    }),
  );
  return { accepted };
}

/** The ingress's produce-duration histogram of single-event requests, as /metrics has it now. */
async function produceBuckets(metricsUrl: string | undefined): Promise<Map<number, number>> {
  if (metricsUrl === undefined) throw new Error('the ingress under test serves no /metrics');
  const res = await fetch(metricsUrl);
  if (!res.ok) throw new Error(`GET ${metricsUrl}: ${res.status}`);
  return histogramBuckets(await res.text(), PRODUCE_DURATION, SINGLE_ROUTE);
}

function ingressTimes(buckets: ReadonlyMap<number, number>): IngressTimes {
  return {
    requests: [...buckets.values()].at(-1) ?? 0,
    p50AtMostMs: bucketQuantileMs(buckets, 0.5),
    p90AtMostMs: bucketQuantileMs(buckets, 0.9),
    p99AtMostMs: bucketQuantileMs(buckets, 0.99),
  };
}
