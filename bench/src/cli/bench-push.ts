import { parseArgs } from 'node:util';
import type { ThreadCpu } from '../proc-usage.ts';
import { benchPush } from '../push-bench.ts';
import { samplingPercent } from '../tracing-cost.ts';
import { benchConnection } from './bench-connection.ts';

export const BENCH_PUSH_USAGE = `Usage: hookstream bench push [--events <n>] [--concurrency <n>] [--partitions <n>] [--tracing [--tracing-ratio <0-1>]] [--ordering] [--batch [--max-events <n>]] [--rounds <n>] [--endpoint-delay-ms <ms>] [--https] [--json]

Deliveries per second of one pusher draining a backlog to a local no-op endpoint (no rate
limit), next to a raw undici POST loop against the same endpoint in the same run, and the ratio:
one warm-up of each, then --rounds runs of each (default 3), interleaved, and their medians.
--tracing also drains the backlog with tracing at 100 % sampling (exported to OTLP/HTTP, the
stack's Jaeger by default), alternating with untraced runs, and prints the slowdown and the
CPU per delivery (process CPU over each drain ÷ deliveries) with tracing on and off.
--tracing-ratio samples that fraction of the traced drains' records instead (a ratio sampler, as
the chart's otel.sampleRatio, default 0.1 there): what tracing costs as production runs it.
--ordering also drains the backlog with ordering "key" and "strict" (997 keys, nothing failing),
--rounds times each (default 3), alternating, and prints the medians and strict/key.
--batch likewise drains it unbatched and with batch.maxEvents --max-events (default 100, grouped
by tenant, 100 ms wait) and prints batched/unbatched.
--endpoint-delay-ms makes the no-op endpoint answer after that long, as a remote one would
(default 0: loopback, where the pusher's CPU is the limit).
--https also drains --events events (5,000 at most) of 16 KiB each to an https endpoint (a
self-signed certificate made now, trusted through Node's CA store), against the plain undici
loop POSTing the same size over https, --rounds times each, interleaved.
Every comparison prints CPU per delivery and heap growth per request in flight beside its rate.
Needs the local stack (npx hookstream stack up). Loopback only; bounded by --events.`;

/** \`hookstream bench push\`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchPushCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      events: { type: 'string', default: '20000' },
      concurrency: { type: 'string', default: '64' },
      partitions: { type: 'string', default: '6' },
      tracing: { type: 'boolean', default: false },
      'tracing-ratio': { type: 'string', default: '1' },
      ordering: { type: 'boolean', default: false },
      rounds: { type: 'string', default: '3' },
      batch: { type: 'boolean', default: false },
      'max-events': { type: 'string', default: '100' },
      'endpoint-delay-ms': { type: 'string', default: '0' },
      https: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_PUSH_USAGE}\n`);
    return 0;
  }
  const events = Number(values.events);
  const concurrency = Number(values.concurrency);
  const partitions = Number(values.partitions);
  const rounds = Number(values.rounds);
  const maxEvents = Number(values['max-events']);
  const endpointDelayMs = Number(values['endpoint-delay-ms']);
  const tracingRatio = Number(values['tracing-ratio']);
  if (!(tracingRatio >= 0 && tracingRatio <= 1)) {
    process.stderr.write('hookstream bench push: --tracing-ratio must be a number from 0 to 1\n');
    return 2;
  }
  if (
    ![events, concurrency, partitions, rounds, maxEvents].every((n) => Number.isInteger(n) && n > 0) ||
    events > 1_000_000 ||
    rounds > 20 ||
    maxEvents > 1000 ||
    !Number.isInteger(endpointDelayMs) ||
    endpointDelayMs < 0 ||
    endpointDelayMs > 10_000
  ) {
    process.stderr.write(
      'hookstream bench push: --events (≤ 1,000,000), --concurrency, --partitions, --rounds (≤ 20) and --max-events (≤ 1000) must be positive integers, --endpoint-delay-ms an integer from 0 to 10000\n',
    );
    return 2;
  }
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`bench: ${line}\n`);
  const result = await benchPush(
    {
      connection: benchConnection(),
      events,
      concurrency,
      partitions,
      tracing: values.tracing,
      tracingSampleRatio: tracingRatio,
      ...(values.ordering ? { orderingRounds: rounds } : {}),
      ...(values.batch ? { batchRounds: rounds, batchEvents: maxEvents } : {}),
      endpointDelayMs,
      rounds,
      // 16 KiB each: 5,000 are 80 MiB on the broker, enough for a rate (the full report's size).
      ...(values.https ? { httpsEvents: Math.min(events, 5000) } : {}),
    },
    progress,
  );
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else
    process.stdout.write(
      `pusher      ${result.pusherPerSecond} deliveries/s\n` +
        `raw undici  ${result.rawUndiciPerSecond} POSTs/s\n` +
        `ratio       ${(result.ratio * 100).toFixed(1)} %  (medians of ${result.rate.runs} interleaved runs each; ${result.events} events, concurrency ${result.concurrency}, ${result.partitions} partitions, endpoint delay ${result.endpointDelayMs} ms)\n` +
        `runs        ${result.rate.all.map((r) => `${r.mode === 'pusher' ? 'pusher' : 'raw'} ${r.perSecond}`).join(', ')}\n` +
        `CPU         pusher ${result.rate.comparedCpuMicros} µs per delivery, raw ${result.rate.baselineCpuMicros} µs per POST, consume → POST loop ${result.loop.baselineCpuMicros} µs (medians)\n` +
        `CPU split   ${cpuSplitLine('pusher', result.rate.comparedCpuSplit)}; ${cpuSplitLine('raw', result.rate.baselineCpuSplit)}; ${cpuSplitLine('consume → POST loop', result.loop.baselineCpuSplit)} (main thread user + its kernel time + other threads, µs per delivery, medians)\n` +
        `heap        pusher ${result.rate.comparedHeapKiB} KiB per request in flight, raw ${result.rate.baselineHeapKiB}, consume → POST loop ${result.loop.baselineHeapKiB} (peak growth ÷ concurrency, medians)\n` +
        (result.https
          ? `https       pusher ${result.https.comparedPerSecond}/s, raw ${result.https.baselinePerSecond}/s: ${result.https.ratio.toFixed(2)}× (${result.https.payloadBytes} bytes each); CPU ${result.https.comparedCpuMicros} against ${result.https.baselineCpuMicros} µs; heap ${result.https.comparedHeapKiB} against ${result.https.baselineHeapKiB} KiB per request in flight\n`
          : '') +
        (result.tracing
          ? `tracing     off ${result.tracing.offPerSecond}/s, on (${samplingPercent(result.tracing.sampleRatio)} sampled) ${result.tracing.onPerSecond}/s: ${(result.tracing.slowdown * 100).toFixed(1)} % slower (mean of ${result.tracing.runs} runs each, alternating)\n` +
            `tracing CPU off ${result.tracing.offCpuMicros} µs, on ${result.tracing.onCpuMicros} µs per delivery: ${(result.tracing.cpuOverhead * 100).toFixed(1)} % more (medians)\n` +
            `runs        ${result.tracing.all.map((r) => `${r.traced ? 'on' : 'off'} ${r.cpuMicrosPerDelivery}`).join(', ')}\n`
          : '') +
        (result.ordering
          ? `ordering    key ${result.ordering.baselinePerSecond}/s, strict ${result.ordering.comparedPerSecond}/s: strict/key ${(result.ordering.ratio * 100).toFixed(1)} % (medians of ${result.ordering.runs} runs each, alternating; CPU per delivery key ${result.ordering.baselineCpuMicros} µs, strict ${result.ordering.comparedCpuMicros} µs)\n`
          : '') +
        (result.batch
          ? `batch       unbatched ${result.batch.baselinePerSecond}/s, batched (maxEvents ${result.batch.maxEvents}) ${result.batch.comparedPerSecond}/s: ${result.batch.ratio.toFixed(2)}× (medians of ${result.batch.runs} runs each, alternating; CPU per delivery ${result.batch.baselineCpuMicros} µs, ${result.batch.comparedCpuMicros} µs)\n`
          : ''),
    );
  return 0;
}

function cpuSplitLine(who: string, split: ThreadCpu | null): string {
  if (split === null) return `${who} not measured`;
  return `${who} ${split.mainUserMicros} + ${split.mainSystemMicros} + ${split.otherThreadsMicros}`;
}
