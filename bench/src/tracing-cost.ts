import { startTracing } from '@hookstream/telemetry';
import { DiagConsoleLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { type ThreadCpu, threadCpu, threadCpuOf } from './proc-usage.ts';
import { quantile } from './stats.ts';

/** One drain of a backlog by the in-process pusher, traced or not. */
export interface TracingRun {
  readonly traced: boolean;
  readonly deliveries: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** Process CPU time (user + system, every thread) over the drain ÷ deliveries, µs. */
  readonly cpuMicrosPerDelivery: number;
}

/** Tracing's cost from drains of one backlog, traced and untraced interleaved in one run. */
export interface TracingComparison {
  /** Runs per mode. */
  readonly runs: number;
  /** The backlog each run drains. */
  readonly events: number;
  /** The share of records the traced runs sampled (1: every one). */
  readonly sampleRatio: number;
  /** Throughput means. */
  readonly offPerSecond: number;
  readonly onPerSecond: number;
  /** 1 − on/off of the throughput means: the share of throughput tracing costs. */
  readonly slowdown: number;
  /** CPU per delivery, medians of the runs of each mode, µs. */
  readonly offCpuMicros: number;
  readonly onCpuMicros: number;
  /** on/off − 1 of the CPU medians: what tracing adds to the CPU of a delivery. */
  readonly cpuOverhead: number;
  /** Every counted run, in the order they ran. */
  readonly all: readonly TracingRun[];
  /** The traced and the untraced drain before them, not counted (see compareTracing). */
  readonly warmUp: readonly TracingRun[];
}

/** What one drain measured; `flush` runs inside the measured window, after the last delivery. */
export interface DrainMeasure {
  readonly deliveries: number;
  readonly seconds: number;
  readonly cpuMicros: number;
  /**
   * Peak V8 heap used during the drain minus the heap used at its start, bytes (garbage not yet
   * collected included: an upper bound of what the requests in flight hold). Absent: not measured.
   */
  readonly heapGrowthBytes?: number;
  /** Requests in flight at most (the concurrency), what the heap growth is divided by. */
  readonly inFlight?: number;
  /** cpuMicros by thread (ThreadCpu); absent where /proc could not say. */
  readonly cpuSplit?: ThreadCpu;
}

export type Drain = (flush?: () => Promise<void>) => Promise<DrainMeasure>;

/** How often a window samples the heap: often enough to see a young-generation peak before its collection. */
const HEAP_SAMPLE_MS = 10;

/**
 * A drain's window: process.cpuUsage() from now until `end()`, and the peak of the V8 heap used,
 * sampled every 10 ms, over the heap used now.
 */
export function cpuWindow(): {
  end(): { seconds: number; cpuMicros: number; heapGrowthBytes: number; cpuSplit?: ThreadCpu };
} {
  const cpu = process.cpuUsage();
  const threadsAtStart = threadCpu();
  const started = performance.now();
  const heapAtStart = process.memoryUsage().heapUsed;
  let peak = heapAtStart;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  const sampler = setInterval(sample, HEAP_SAMPLE_MS);
  // The window must never keep a process alive that has nothing else to do.
  sampler.unref();
  return {
    end() {
      const used = process.cpuUsage(cpu);
      const threads = threadCpu();
      clearInterval(sampler);
      sample();
      return {
        seconds: (performance.now() - started) / 1000,
        cpuMicros: used.user + used.system,
        heapGrowthBytes: peak - heapAtStart,
        ...(threadsAtStart === null || threads === null
          ? {}
          : { cpuSplit: threadCpuOf((part) => threads[part] - threadsAtStart[part]) }),
      };
    },
  };
}

/**
 * After a traced and an untraced warm-up drain, drains `rounds` times with tracing at 100 % sampling (or `sampleRatio`; exported over OTLP/HTTP to the
 * configured collector, the local Jaeger by default) and `rounds` times without. Each round runs
 * one of each, the order swapped every round (on off, off on, …), so slow drift in the machine's
 * other load falls on both modes alike. The traced window ends after the last spans are handed
 * to the exporter, so their encoding and export count.
 */
export async function compareTracing(
  drain: Drain,
  events: number,
  rounds: number,
  progress: (line: string) => void,
  options: { readonly warmUpDrains?: boolean | undefined; readonly sampleRatio?: number } = {},
): Promise<TracingComparison> {
  const warmUpDrains = options.warmUpDrains ?? true;
  const sampleRatio = options.sampleRatio ?? 1;
  const sampling = `${samplingPercent(sampleRatio)} sampling`;
  const all: TracingRun[] = [];
  const warmUp: TracingRun[] = [];
  // Dropped spans (a full export queue) would flatter the traced figure; say so if it happens.
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.WARN);
  try {
    // The first traced drain also pays for loading and compiling the tracing code once, and the
    // first drains after a switch between modes re-optimize the code both share (its call
    // sites see the other mode's span objects): measured, the first counted pair was the dearest
    // of every run. One drain of each mode first, not counted, leaves that out of both.
    if (warmUpDrains) {
      progress(`pusher with tracing (${sampling}), warm-up (not counted)`);
      warmUp.push(await tracedRun(drain, sampleRatio));
      progress('pusher without tracing, warm-up (not counted)');
      warmUp.push(toRun(false, await drain()));
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [true, false] : [false, true];
      for (const traced of order) {
        progress(
          `pusher ${traced ? `with tracing (${sampling})` : 'without tracing'}, round ${round + 1} of ${rounds}`,
        );
        all.push(traced ? await tracedRun(drain, sampleRatio) : toRun(false, await drain()));
      }
    }
  } finally {
    diag.disable();
  }
  const on = all.filter((r) => r.traced);
  const off = all.filter((r) => !r.traced);
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const median = (xs: readonly number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = sorted.length / 2;
    return sorted.length % 2 === 1
      ? quantile(sorted, 0.5)
      : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
  };
  const offPerSecond = mean(off.map((r) => r.perSecond));
  const onPerSecond = mean(on.map((r) => r.perSecond));
  const offCpu = median(off.map((r) => r.cpuMicrosPerDelivery));
  const onCpu = median(on.map((r) => r.cpuMicrosPerDelivery));
  return {
    runs: rounds,
    events,
    sampleRatio,
    offPerSecond: Math.round(offPerSecond),
    onPerSecond: Math.round(onPerSecond),
    slowdown: round3(1 - onPerSecond / offPerSecond),
    offCpuMicros: round1(offCpu),
    onCpuMicros: round1(onCpu),
    cpuOverhead: round3(onCpu / offCpu - 1),
    all,
    warmUp,
  };
}

async function tracedRun(drain: Drain, sampleRatio: number): Promise<TracingRun> {
  const tracing = await startTracing({ serviceName: 'hookstream-pusher', sampleRatio });
  try {
    return toRun(true, await drain(() => tracing.flush()));
  } finally {
    // Also restores the API's no-op globals: the next untraced run really has no SDK.
    await tracing.shutdown();
  }
}

function toRun(traced: boolean, m: DrainMeasure): TracingRun {
  return {
    traced,
    deliveries: m.deliveries,
    seconds: round3(m.seconds),
    perSecond: Math.round(m.deliveries / m.seconds),
    cpuMicrosPerDelivery: round1(m.cpuMicros / m.deliveries),
  };
}

/** The per-run table for the report. */
export function tracingRunsMarkdown(c: TracingComparison): string {
  const lines = [
    '| run | tracing | deliveries | seconds | deliveries/s | CPU µs per delivery |',
    '| ---: | --- | ---: | ---: | ---: | ---: |',
    ...c.warmUp.map(
      (r) =>
        `| warm-up, not counted | ${r.traced ? 'on' : 'off'} | ${r.deliveries} | ${r.seconds.toFixed(2)} | ${r.perSecond.toLocaleString('en-US')} | ${r.cpuMicrosPerDelivery.toFixed(1)} |`,
    ),
    ...c.all.map(
      (r, i) =>
        `| ${i + 1} | ${r.traced ? 'on' : 'off'} | ${r.deliveries} | ${r.seconds.toFixed(2)} | ${r.perSecond.toLocaleString('en-US')} | ${r.cpuMicrosPerDelivery.toFixed(1)} |`,
    ),
  ];
  return lines.join('\n');
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** A sample ratio as people read it: 0.1 is "10 %". */
export function samplingPercent(ratio: number): string {
  return `${Math.round(ratio * 1000) / 10} %`;
}
