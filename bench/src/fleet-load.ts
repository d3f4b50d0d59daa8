import { randomUUID } from 'node:crypto';
import { type ArrivalWatch, waitForArrivals } from './arrival-watch.ts';
import type { BenchSubscriber } from './fleet-subscribers.ts';
import type { KafkaEventSink } from './kafka-event-sink.ts';
import { openLoop } from './open-loop.ts';
import { CpuMeter } from './proc-usage.ts';
import type { RunControl } from './run-control.ts';
import { type LatencySummary, summarizeLatencies } from './stats.ts';

export interface LoadPhaseOptions extends RunControl {
  /** Names the phase in ids and progress lines. */
  readonly label: string;
  /** The subscribers under load (active and doomed); each event goes to exactly one of them. */
  readonly subscribers: readonly BenchSubscriber[];
  readonly perSubscriberPerSecond: number;
  readonly seconds: number;
  readonly sink: KafkaEventSink;
  /** The receivers' arrivals (the healthy endpoint's and the doomed one's). */
  readonly watches: readonly ArrivalWatch[];
  /** Whether the doomed subscribers' endpoint is dead in this phase (none of theirs will arrive). */
  readonly doomedDead: boolean;
  /** The fleet process, whose CPU share under this load is measured. */
  readonly fleetPid: number;
}

/** Deliveries of a set of subscribers in one phase. */
export interface DeliveryRate {
  readonly delivered: number;
  /** Distinct events delivered / (last arrival − first scheduled publish). */
  readonly perSecond: number;
  /** Scheduled publish → first accepted arrival at the endpoint. */
  readonly latency: LatencySummary;
}

export interface LoadFigures {
  readonly subscribers: number;
  readonly doomedDead: boolean;
  readonly targetPerSecond: number;
  readonly seconds: number;
  readonly published: number;
  readonly publishErrors: number;
  /** Every subscriber under load. */
  readonly all: DeliveryRate;
  /** Only those whose endpoint stays up throughout: the figure compared across phases. */
  readonly healthy: DeliveryRate;
  readonly doomedDelivered: number;
  /** The fleet process's CPU while the events were published, % of one core. */
  readonly fleetCpuPercent: number;
}

/**
 * Publishes events on a fixed schedule, round robin over the subscribers (each its own type, or
 * its own tenant on a shared type), at
 * `perSubscriberPerSecond` each for `seconds`, then waits for what should arrive and times it.
 */
export async function runLoadPhase(options: LoadPhaseOptions): Promise<LoadFigures> {
  const { subscribers, watches } = options;
  const k = subscribers.length;
  const targetPerSecond = k * options.perSubscriberPerSecond;
  const count = Math.max(1, Math.round(targetPerSecond * options.seconds));
  const run = randomUUID().slice(0, 8);
  const owner = (n: number) => subscribers[n % k] as BenchSubscriber;
  const arrives = (s: BenchSubscriber) => !(options.doomedDead && s.role === 'doomed');
  const arrived = () => watches.reduce((sum, w) => sum + w.update(), 0);
  const base = arrived();
  let expected = 0;
  const cpu = await CpuMeter.start(options.fleetPid);
  const started = performance.now();
  const ticker = setInterval(
    () => options.progress(`${options.label}: ${Math.round((performance.now() - started) / 1000)} s`),
    10_000,
  );
  let sent: Awaited<ReturnType<typeof openLoop>>;
  try {
    sent = await openLoop(
      count,
      targetPerSecond,
      (n) => `${options.label}-${run}-${n}`,
      async (id, n) => {
        const s = owner(n);
        const ok = await options.sink.send({
          id,
          type: s.eventType,
          key: `k${n % 256}`,
          n,
          time: new Date().toISOString(),
          ...(s.tenant === undefined ? {} : { tenant: s.tenant }),
        });
        if (ok && arrives(s)) expected++;
        return ok;
      },
      options.signal,
    );
  } finally {
    clearInterval(ticker);
  }
  const fleetCpuPercent = await cpu.percent();
  // Bounded: a fleet that falls behind for good is reported as such, not waited for forever.
  const maxMs = Math.max(60_000, 2000 * options.seconds);
  await waitForArrivals(arrived, base + expected, options.label, { maxMs, signal: options.signal });
  const firstArrival = (id: string) => {
    for (const w of watches) {
      const at = w.first.get(id);
      if (at !== undefined) return at;
    }
    return undefined;
  };
  const entries = [...sent.scheduled].map(([id, at], n) => ({
    at,
    arrivedAt: firstArrival(id),
    s: owner(n),
  }));
  const rate = (wanted: (s: BenchSubscriber) => boolean): DeliveryRate => {
    const mine = entries.filter((e) => wanted(e.s));
    const latencies: number[] = [];
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    for (const e of mine) {
      first = Math.min(first, e.at);
      if (e.arrivedAt === undefined) continue;
      latencies.push(e.arrivedAt - e.at);
      last = Math.max(last, e.arrivedAt);
    }
    const seconds = (last - first) / 1000;
    return {
      delivered: latencies.length,
      perSecond: seconds > 0 ? Math.round((latencies.length / seconds) * 10) / 10 : 0,
      latency: summarizeLatencies(latencies),
    };
  };
  return {
    subscribers: k,
    doomedDead: options.doomedDead,
    targetPerSecond,
    seconds: options.seconds,
    published: sent.accepted,
    publishErrors: count - sent.accepted,
    all: rate(() => true),
    healthy: rate((s) => s.role === 'active'),
    doomedDelivered: rate((s) => s.role === 'doomed').delivered,
    fleetCpuPercent,
  };
}
