import type { Arrival } from '@hookstream/receiver';
import { type LatencySummary, summarizeLatencies } from './stats.ts';
import type { Published } from './steady-load.ts';

/** What the receiver saw of each event: its first accepted arrival, and how many more came. */
export interface ArrivalTally {
  readonly first: Map<string, number>;
  /** Epoch ms of every accepted arrival after an event's first: one duplicate each. */
  readonly repeats: number[];
  /** Every repeat, so a run's instance logs can be read around them. */
  readonly repeated: readonly RepeatedArrival[];
}

/** An event accepted again: which, for whom, and when both arrivals came. */
export interface RepeatedArrival {
  readonly eventId: string;
  readonly subscriptionId: string | null;
  readonly firstAt: string;
  readonly repeatAt: string;
  readonly repeatAtMs: number;
}

/** Repeats of one window described one by one, at most. */
const REPEATS_DESCRIBED = 10;

export function tallyArrivals(arrivals: readonly Arrival[]): ArrivalTally {
  const first = new Map<string, number>();
  const repeats: number[] = [];
  const repeated: RepeatedArrival[] = [];
  for (const a of arrivals) {
    if (a.eventId === null || a.status >= 300) continue;
    const firstAtMs = first.get(a.eventId);
    if (firstAtMs === undefined) {
      first.set(a.eventId, a.atMs);
      continue;
    }
    repeats.push(a.atMs);
    repeated.push({
      eventId: a.eventId,
      subscriptionId: a.subscriptionId,
      firstAt: new Date(firstAtMs).toISOString(),
      repeatAt: new Date(a.atMs).toISOString(),
      repeatAtMs: a.atMs,
    });
  }
  return { first, repeats, repeated };
}

/** Deliveries of one set of subscribers (moved or unmoved) for the events published in a window. */
export interface WindowDeliveries {
  readonly published: number;
  readonly delivered: number;
  /** Delivered / window length. */
  readonly perSecond: number;
  readonly latency: LatencySummary;
  /** Published in the window and never delivered. */
  readonly lost: number;
}

/** Latency above which an event counts as held up by the disruption. */
export const LATE_MS = 1000;

export interface WindowFigures {
  /** Events of the disrupted shard's subscribers (their groups rebalanced). */
  readonly moved: WindowDeliveries;
  /** Events of every other shard's subscribers; null when every subscriber moved (one shard). */
  readonly unmoved: WindowDeliveries | null;
  /**
   * From the disruption's start until the last arrival of a moved subscriber's event that came
   * more than LATE_MS after it was published (0: none late): how long the rebalance held them up.
   */
  readonly stallSeconds: number;
  /** Accepted arrivals in the window of events that had arrived before. */
  readonly duplicates: number;
  /** The window's first repeats, one by one. */
  readonly repeated: readonly RepeatedArrival[];
}

/** [from, to) in epoch ms. */
export interface Window {
  readonly from: number;
  readonly to: number;
}

export function windowFigures(
  published: readonly Published[],
  tally: ArrivalTally,
  window: Window,
  moved: (p: Published) => boolean,
  allMoved: boolean,
): WindowFigures {
  const mine = published.filter((p) => p.at >= window.from && p.at < window.to);
  const seconds = (window.to - window.from) / 1000;
  let stallEnd = window.from;
  for (const p of mine) {
    if (!moved(p)) continue;
    const at = tally.first.get(p.id);
    if (at !== undefined && at - p.at > LATE_MS) stallEnd = Math.max(stallEnd, at);
  }
  return {
    moved: deliveries(
      mine.filter((p) => moved(p)),
      tally,
      seconds,
    ),
    unmoved: allMoved
      ? null
      : deliveries(
          mine.filter((p) => !moved(p)),
          tally,
          seconds,
        ),
    stallSeconds: Math.round((stallEnd - window.from) / 100) / 10,
    duplicates: tally.repeats.filter((at) => at >= window.from && at < window.to).length,
    repeated: tally.repeated
      .filter((r) => r.repeatAtMs >= window.from && r.repeatAtMs < window.to)
      .slice(0, REPEATS_DESCRIBED),
  };
}

function deliveries(events: readonly Published[], tally: ArrivalTally, seconds: number): WindowDeliveries {
  const latencies: number[] = [];
  for (const p of events) {
    const at = tally.first.get(p.id);
    if (at !== undefined) latencies.push(at - p.at);
  }
  return {
    published: events.length,
    delivered: latencies.length,
    perSecond: seconds > 0 ? Math.round((latencies.length / seconds) * 10) / 10 : 0,
    latency: summarizeLatencies(latencies),
    lost: events.length - latencies.length,
  };
}
