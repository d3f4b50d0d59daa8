import { benchPull, type PullBenchResult } from './pull-bench.ts';
import { defineSection } from './report-section.ts';

const PULLERS = 2;
const MAX = 500;
const CONCURRENCY = 64;
/** Issue 29's target for one pull subscriber. */
const PULL_TARGET = 20_000;

export const pullSection = defineSection<PullBenchResult>({
  id: 'pull',
  title: 'Pull subscribers: leasing through the management API',
  method:
    'One backlog of 1 KiB events (6 partitions) read twice in one run (`hookstream bench pull`): first by ' +
    `a pull subscriber of the management API in its own process, ${PULLERS} clients each leasing up to ` +
    `${MAX} events and acknowledging each lease at once by cursor until the backlog is through, after a ` +
    'first lease that waits for the group to join; then one pusher drains the same backlog to a no-op ' +
    `endpoint in its own process, concurrency ${CONCURRENCY}. Beside the rate: the API process's CPU (/proc) from ` +
    "after the first lease until the last acknowledgement ÷ events, against the pusher's (`process.cpuUsage()`) " +
    "per delivery of the same backlog, and the API process's peak RSS over that window minus its RSS before, ÷ " +
    'the leases in flight (one per puller), KiB.',
  run: (ctx) =>
    benchPull(
      {
        connection: ctx.connection,
        events: ctx.scale.pullEvents,
        partitions: 6,
        max: MAX,
        pullers: PULLERS,
        concurrency: CONCURRENCY,
      },
      ctx.progress,
    ),
  figures: (r) => [
    {
      id: 'pull.rate',
      label: `pull, ${r.pullers} clients leasing up to ${r.max}, acknowledging at once`,
      value: r.pullPerSecond,
      unit: 'events/s',
      baselines: [{ label: 'push draining the same backlog', value: r.pushPerSecond }],
    },
    {
      id: 'pull.cpu',
      label: "the API process's CPU per event pulled and acknowledged (/proc)",
      value: r.pullCpuMicrosPerEvent,
      unit: 'µs',
      baselines: [
        { label: 'the pusher, per delivery of the same backlog', value: r.pushCpuMicrosPerDelivery },
      ],
    },
    {
      // RSS, the API being a child process; the pusher's heap figure is of another kind, so none beside it.
      id: 'pull.memory',
      label: `the API process's peak RSS growth per lease in flight (${r.pullers} pullers)`,
      value: r.pullRssKiBPerLease,
      unit: 'KiB',
      baselines: [],
    },
  ],
  targets: (r) => [
    {
      target: `pull ≥ ${PULL_TARGET.toLocaleString('en-US')} events/s`,
      measured: `${r.pullPerSecond.toLocaleString('en-US')} events/s (${r.ratio.toFixed(2)}× push's ${r.pushPerSecond.toLocaleString('en-US')})`,
      met: r.pullPerSecond >= PULL_TARGET,
    },
  ],
  chart: (r) => ({
    throughput: [
      {
        label: 'pull (leases of the API)',
        perSecond: r.pullPerSecond,
        baseline: { label: 'push', value: r.pushPerSecond },
      },
    ],
  }),
  details: (r) =>
    `${r.events.toLocaleString('en-US')} events over ${r.partitions} partitions in ${r.leases.toLocaleString('en-US')} leases.`,
});
