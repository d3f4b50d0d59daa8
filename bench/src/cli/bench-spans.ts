import { parseArgs } from 'node:util';
import { formatTable } from '@hookstream/terminal';
import { runSpanCostBench, type SpanCostSetting } from '../span-cost-bench.ts';

export const BENCH_SPANS_USAGE = `Usage: hookstream bench spans [--deliveries <n>] [--rounds <n>] [--json]

What a delivery's spans cost alone: a process of its own builds the pusher's two spans per
delivery (its process span from a record with a traceparent, the HTTP attempt's child), ends
them and exports them over OTLP/HTTP protobuf to the local Jaeger, against the same with tracing
off; each run's CPU per delivery, export included. Five settings: no delivery in flight or 64,
and 0, 200 or 1,000 short-lived objects allocated per delivery besides the spans (the rest of a
delivery's work). --deliveries: per run (default 100000, 1000..1000000); --rounds: untraced and
traced pairs per setting (default 2, at most 10). No Kafka; Jaeger must run (npx hookstream stack up).`;

const SETTINGS: readonly SpanCostSetting[] = [
  { inFlight: 0, churn: 0 },
  { inFlight: 64, churn: 0 },
  { inFlight: 64, churn: 200 },
  { inFlight: 0, churn: 1000 },
  { inFlight: 64, churn: 1000 },
];

/** `hookstream bench spans`: a measurement, not a test; prints figures, asserts nothing. */
export async function benchSpansCommand(args: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      deliveries: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '2' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${BENCH_SPANS_USAGE}\n`);
    return 0;
  }
  const deliveries = Number(values.deliveries);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(deliveries) || deliveries < 1000 || deliveries > 1_000_000) {
    process.stderr.write(
      `hookstream bench spans: --deliveries must be 1000..1000000\n${BENCH_SPANS_USAGE}\n`,
    );
    return 2;
  }
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 10) {
    process.stderr.write(`hookstream bench spans: --rounds must be 1..10\n${BENCH_SPANS_USAGE}\n`);
    return 2;
  }
  const rows = await runSpanCostBench({ deliveries, rounds, settings: SETTINGS }, (line) =>
    process.stderr.write(`bench: ${line}\n`),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ deliveries, rounds, rows }, null, 2)}\n`);
    return 0;
  }
  const us = (xs: readonly number[]) => xs.map((x) => x.toFixed(2)).join(', ');
  process.stdout.write(
    `${formatTable(
      [
        'in flight',
        'other objects per delivery',
        'untraced µs',
        'traced µs',
        "tracing's CPU µs per delivery",
      ],
      rows.map((r) => [
        String(r.inFlight),
        r.churn.toLocaleString('en-US'),
        us(r.offMicros),
        us(r.onMicros),
        `${r.costMicros.low.toFixed(1)}–${r.costMicros.high.toFixed(1)}`,
      ]),
    )}\n`,
  );
  return 0;
}
