import { quantile } from './stats.ts';
import type { DrainMeasure } from './tracing-cost.ts';

/** The orderings compared: strict's promise is to cost nothing over `key` while nothing fails. */
export type ComparedOrdering = 'key' | 'strict';

export interface OrderingRun {
  readonly ordering: ComparedOrdering;
  readonly perSecond: number;
  readonly cpuMicrosPerDelivery: number;
}

/** `ordering: "strict"` against `ordering: "key"`, drains of one backlog interleaved in one run. */
export interface OrderingComparison {
  /** Runs per ordering. */
  readonly runs: number;
  /** Medians of the runs of each ordering. */
  readonly keyPerSecond: number;
  readonly strictPerSecond: number;
  /** strict / key of the throughput medians. */
  readonly ratio: number;
  readonly keyCpuMicros: number;
  readonly strictCpuMicros: number;
  readonly all: readonly OrderingRun[];
}

/**
 * Drains the backlog `rounds` times with each ordering, the order swapped every round (key
 * strict, strict key, …) so drift in the machine's load falls on both alike, after one
 * uncounted drain of each.
 */
export async function compareOrdering(
  drain: (ordering: ComparedOrdering) => Promise<DrainMeasure>,
  rounds: number,
  progress: (line: string) => void,
): Promise<OrderingComparison> {
  const run = async (ordering: ComparedOrdering): Promise<OrderingRun> => {
    progress(`pusher with ordering "${ordering}"`);
    const m = await drain(ordering);
    return {
      ordering,
      perSecond: Math.round(m.deliveries / m.seconds),
      cpuMicrosPerDelivery: Math.round(m.cpuMicros / m.deliveries),
    };
  };
  await run('key');
  await run('strict');
  const all: OrderingRun[] = [];
  for (let i = 0; i < rounds; i++) {
    const pair: ComparedOrdering[] = i % 2 === 0 ? ['key', 'strict'] : ['strict', 'key'];
    for (const ordering of pair) all.push(await run(ordering));
  }
  const median = (ordering: ComparedOrdering, pick: (r: OrderingRun) => number) =>
    Math.round(
      quantile(
        all
          .filter((r) => r.ordering === ordering)
          .map(pick)
          .sort((a, b) => a - b),
        0.5,
      ),
    );
  const keyPerSecond = median('key', (r) => r.perSecond);
  const strictPerSecond = median('strict', (r) => r.perSecond);
  return {
    runs: rounds,
    keyPerSecond,
    strictPerSecond,
    ratio: Math.round((strictPerSecond / keyPerSecond) * 1000) / 1000,
    keyCpuMicros: median('key', (r) => r.cpuMicrosPerDelivery),
    strictCpuMicros: median('strict', (r) => r.cpuMicrosPerDelivery),
    all,
  };
}
