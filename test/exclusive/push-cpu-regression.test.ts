import {
  CPU_BASELINE_COMMAND,
  CPU_BASELINE_DEFAULTS,
  CPU_REGRESSION_MARGIN,
  cpuRegressionVerdict,
  measureCpuRatio,
  readCpuBaseline,
} from '@hookstream/bench';
import { plaintextConnection } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import { uniqueName } from '../support/names.ts';
import { endpoints } from '../support/stack.ts';

// Issue 45, item 6: a regression check of the pusher's CPU per delivery. The issue asks for it
// in the unit phase, but that phase (`turbo run test`, each package's own tests) has no stack,
// and a drain needs Kafka; and a CPU figure taken beside other test files measures them too. So
// it lives here, in test/exclusive: alone on the machine, against the real stack.
//
// Machine speed must not decide it: in this same run the in-process pusher drains a small fixed
// backlog and the plain undici loop POSTs as many bodies to the same no-op endpoint (three
// uncounted runs of each, then interleaved rounds, medians), and the check compares the ratio of
// their CPU per unit with the committed one (bench/cpu-baseline.json) × the margin argued in
// bench/src/cpu-baseline.ts. After a deliberate change of the pusher's cost, re-measure the
// baseline with `npx hookstream bench cpu-baseline --write` on a quiet machine and commit it.

const connection = plaintextConnection(endpoints.brokers, endpoints.registry);

describe('the pusher CPU per delivery against the plain undici loop', () => {
  it(`stays within ${CPU_REGRESSION_MARGIN}× the committed ratio`, async () => {
    const baseline = await readCpuBaseline();
    // The baseline holds only for the load it was measured with.
    expect([baseline.events, baseline.rounds]).toEqual([
      CPU_BASELINE_DEFAULTS.events,
      CPU_BASELINE_DEFAULTS.rounds,
    ]);
    const started = performance.now();
    const measured = await measureCpuRatio({ connection, topic: uniqueName('cpu-check') }, () => undefined);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const verdict = cpuRegressionVerdict(measured, baseline);
    const runs = measured.runs.map(
      (r) => `${r.mode === 'pusher' ? 'pusher' : 'loop'} ${r.cpuMicrosPerDelivery}`,
    );
    process.stderr.write(
      `[push-cpu] ratio ${measured.ratio} (pusher ${measured.pusherCpuMicros} µs per delivery, loop ` +
        `${measured.loopCpuMicros} µs per POST; rounds ${runs.join(', ')}), baseline ${baseline.ratio}, ` +
        `allowed ${verdict.allowed}, ${seconds} s\n`,
    );
    expect(measured.runs.filter((r) => r.mode === 'pusher')).toHaveLength(CPU_BASELINE_DEFAULTS.rounds);
    expect(
      measured.ratio,
      `the pusher's CPU per delivery is ${measured.ratio}× the plain loop's per POST, over the baseline ` +
        `${baseline.ratio} × ${CPU_REGRESSION_MARGIN}: find what made a delivery dearer, or, if it was deliberate, ` +
        `re-measure with \`${CPU_BASELINE_COMMAND}\` on a quiet machine and commit bench/cpu-baseline.json`,
    ).toBeLessThanOrEqual(verdict.allowed);
  }, 120_000);
});
