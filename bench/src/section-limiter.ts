import { type LimiterBenchResult, runLimiterBench } from './limiter-bench.ts';
import { defineSection } from './report-section.ts';

const caseLabel = (r: LimiterBenchResult) =>
  r.instances === 1 ? 'one pusher' : `${r.instances} pushers sharing the limit through Redis`;

// No chart bars: a few requests per second next to thousands of events per second would not show.

export const limiterSection = defineSection<LimiterBenchResult[]>({
  id: 'limiter',
  title: 'Rate limiter accuracy',
  method:
    'A backlog to a subscriber limited to N requests/s (burst 0), delivered by pusher processes to ' +
    'the sample receiver; the backlog lands once every pusher joined its group. Measured at the ' +
    'endpoint: the most requests in any sliding 1-second window, and the share of the limit used ' +
    '((requests − 1) / (last − first arrival) / N). Run with one pusher, and with two sharing the ' +
    'limit through Redis when Redis is up.',
  async run(ctx) {
    const { limiterRate: rate, limiterEvents: events } = ctx.scale;
    const common = {
      connection: ctx.connection,
      rate,
      events,
      progress: ctx.progress,
    };
    ctx.progress(`limiter: ${events} events to a ${rate}/s subscriber, one pusher…`);
    const results = [await runLimiterBench({ ...common, instances: 1 })];
    if (ctx.redisUrl) {
      ctx.progress(`limiter: ${events} events to a ${rate}/s subscriber, two pushers + Redis…`);
      results.push(await runLimiterBench({ ...common, instances: 2, redisUrl: ctx.redisUrl }));
    }
    return results;
  },
  figures: (results) =>
    results.flatMap((r) => [
      {
        id: `limiter.${r.instances}.max`,
        label: `busiest 1 s window, ${caseLabel(r)}`,
        value: r.maxInAnySecond,
        unit: 'requests',
        baselines: [{ label: 'the limit', value: r.rate }],
      },
      {
        id: `limiter.${r.instances}.used`,
        label: `limit used, ${caseLabel(r)}`,
        value: r.usedPercent,
        unit: '%',
        baselines: [],
      },
    ]),
  targets: (results) =>
    results.flatMap((r) => [
      {
        target: `limiter never above ${r.rate}/s in any 1 s window (${caseLabel(r)})`,
        measured: `busiest window ${r.maxInAnySecond}`,
        met: r.received > 0 && r.maxInAnySecond <= r.rate,
      },
      {
        target: `limiter uses ≥ 95 % of ${r.rate}/s (${caseLabel(r)})`,
        measured: `${r.usedPercent} % (${r.received} requests in ${r.spanSeconds} s)`,
        met: r.usedPercent >= 95,
      },
    ]),
});
