import { BreakerSettings } from '@hookstream/contracts';
import { describe, expect, it } from 'vitest';
import {
  type BreakerPhase,
  BreakerPolicy,
  type DisableCause,
  type HealthSignal,
  healthSignal,
  type TransitionCause,
} from '../src/breaker-policy.ts';
import { classify } from '../src/policy.ts';

const settings = BreakerSettings.parse({
  consecutiveFailures: 3,
  failureRatio: 0.5,
  windowMs: 10_000,
  minAttempts: 6,
  probeIntervalMs: 1000,
});

/** One step of a table: at a time, an outcome, a probe claim or an admission check. */
type Step =
  | {
      at: number;
      report: HealthSignal;
      probe?: boolean;
      phase: BreakerPhase;
      cause?: TransitionCause;
      disable?: DisableCause;
    }
  | { at: number; admit: 'go' | 'probe-due' | 'wait'; phase?: BreakerPhase }
  | { at: number; sendProbe: true; phase: BreakerPhase }
  | { at: number; shared: { openedAtMs: number; failingSinceMs: number | null } | null; phase: BreakerPhase };

function run(steps: readonly Step[], options: { disableAfterMs?: number; enabled?: boolean } = {}) {
  let now = 0;
  const policy = new BreakerPolicy({
    settings: { ...settings, enabled: options.enabled ?? true },
    disableAfterMs: options.disableAfterMs ?? 60_000,
    now: () => now,
  });
  steps.forEach((step, i) => {
    now = step.at;
    const where = `step ${i} at ${step.at} ms`;
    if ('report' in step) {
      const { transition, disable } = policy.report(step.report, step.probe ?? false);
      expect(policy.state.phase, where).toBe(step.phase);
      expect(transition?.cause, where).toBe(step.cause);
      expect(disable, where).toBe(step.disable ?? null);
    } else if ('admit' in step) {
      expect(policy.admit().kind, where).toBe(step.admit);
      if (step.phase) expect(policy.state.phase, where).toBe(step.phase);
    } else if ('sendProbe' in step) {
      policy.probeSent();
      expect(policy.state.phase, where).toBe(step.phase);
    } else {
      policy.adopt(step.shared);
      expect(policy.state.phase, where).toBe(step.phase);
    }
  });
  return policy;
}

describe('healthSignal: what an attempt says about the endpoint', () => {
  it.each([
    [{ kind: 'response', status: 204 }, 'success'],
    [{ kind: 'response', status: 500 }, 'failure'],
    [{ kind: 'response', status: 503 }, 'failure'],
    [{ kind: 'timeout' }, 'failure'],
    [{ kind: 'connection-error', code: 'ECONNREFUSED' }, 'failure'],
    [{ kind: 'response', status: 302 }, 'failure'],
    [{ kind: 'response', status: 410 }, 'gone'],
    [{ kind: 'response', status: 404 }, 'success'],
    [{ kind: 'response', status: 422 }, 'success'],
    [{ kind: 'response', status: 429 }, 'neutral'],
    [{ kind: 'connection-error', code: 'EGRESS_PROXY_UNREACHABLE' }, 'neutral'],
    [{ kind: 'connection-error', code: 'EGRESS_PROXY_REFUSED' }, 'neutral'],
  ] as const)('%o is %s', (result, signal) => {
    expect(healthSignal(classify(result, 0))).toBe(signal);
  });
});

describe('BreakerPolicy: the state machine, driven by a table of times', () => {
  it.each<[string, Step[]]>([
    [
      'opens after the consecutive failures, waits, probes one interval later, a probe success closes it',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 10, report: 'failure', phase: 'closed' },
        { at: 20, report: 'failure', phase: 'open', cause: 'consecutive-failures' },
        { at: 500, admit: 'wait' },
        { at: 1020, admit: 'probe-due' },
        { at: 1020, sendProbe: true, phase: 'half-open' },
        { at: 1030, admit: 'wait', phase: 'half-open' },
        { at: 1100, report: 'success', probe: true, phase: 'closed', cause: 'success' },
        { at: 1100, admit: 'go' },
      ],
    ],
    [
      'a failed probe opens it again; the next probe is one interval after its answer',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'failure', phase: 'closed' },
        { at: 2, report: 'failure', phase: 'open', cause: 'consecutive-failures' },
        { at: 1002, sendProbe: true, phase: 'half-open' },
        { at: 1500, report: 'failure', probe: true, phase: 'open', cause: 'probe-failed' },
        { at: 2002, admit: 'wait' },
        { at: 2499, admit: 'wait' },
        { at: 2500, admit: 'probe-due' },
      ],
    ],
    [
      'a probe that never reports lets another go one interval later (its process died)',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 0, report: 'failure', phase: 'open', cause: 'consecutive-failures' },
        { at: 1000, sendProbe: true, phase: 'half-open' },
        { at: 1999, admit: 'wait', phase: 'half-open' },
        { at: 2000, admit: 'probe-due', phase: 'half-open' },
      ],
    ],
    [
      'a success in between resets the run of failures',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'failure', phase: 'closed' },
        { at: 2, report: 'success', phase: 'closed' },
        { at: 3, report: 'failure', phase: 'closed' },
        { at: 4, report: 'failure', phase: 'closed' },
      ],
    ],
    [
      'opens on the failure ratio over the window once it has the minimum attempts',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'success', phase: 'closed' },
        { at: 2, report: 'failure', phase: 'closed' },
        { at: 3, report: 'failure', phase: 'closed' },
        { at: 4, report: 'success', phase: 'closed' },
        // 6 attempts, 3 failed: 50 %.
        { at: 5, report: 'failure', phase: 'open', cause: 'failure-ratio' },
      ],
    ],
    [
      'failures that left the window no longer count towards the ratio',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'failure', phase: 'closed' },
        { at: 2, report: 'success', phase: 'closed' },
        { at: 12_000, report: 'success', phase: 'closed' },
        { at: 12_001, report: 'failure', phase: 'closed' },
        { at: 12_002, report: 'success', phase: 'closed' },
        { at: 12_003, report: 'failure', phase: 'closed' },
      ],
    ],
    [
      'a 429 and a 4xx do not open it; a 4xx closes an open one (the endpoint answers)',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'neutral', phase: 'closed' },
        { at: 2, report: 'failure', phase: 'closed' },
        { at: 3, report: 'neutral', phase: 'closed' },
        { at: 4, report: 'failure', phase: 'open', cause: 'consecutive-failures' },
        { at: 5, report: 'success', phase: 'closed', cause: 'success' },
      ],
    ],
    [
      'another instance opening it opens it here; its closing closes it here',
      [
        { at: 0, shared: { openedAtMs: 0, failingSinceMs: 0 }, phase: 'open' },
        { at: 10, admit: 'wait' },
        { at: 1000, admit: 'probe-due' },
        { at: 1000, shared: null, phase: 'closed' },
        { at: 1000, admit: 'go' },
      ],
    ],
    [
      'after closing, the outage does not trip it again at the next failure',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 0, report: 'failure', phase: 'open', cause: 'consecutive-failures' },
        { at: 1000, report: 'success', probe: true, phase: 'closed', cause: 'success' },
        { at: 1001, report: 'failure', phase: 'closed' },
      ],
    ],
  ])('%s', (_name, steps) => {
    run(steps);
  });

  it('disabled by its settings it never opens, but sustained failure still disables', () => {
    run(
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'failure', phase: 'closed' },
        { at: 2, report: 'failure', phase: 'closed' },
        { at: 3, report: 'failure', phase: 'closed' },
        { at: 60_000, report: 'failure', phase: 'closed', disable: 'failing' },
      ],
      { enabled: false },
    );
    run([{ at: 0, shared: { openedAtMs: 0, failingSinceMs: 0 }, phase: 'closed' }], { enabled: false });
  });

  it.each<[string, Step[]]>([
    [
      'a 410 disables at once, whatever the state',
      [{ at: 0, report: 'gone', phase: 'closed', disable: 'gone' }],
    ],
    [
      'failure without a success for disableAfterMs disables, counted from the first failure',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 1, report: 'failure', phase: 'closed' },
        { at: 2, report: 'failure', phase: 'open', cause: 'consecutive-failures' },
        { at: 30_000, sendProbe: true, phase: 'half-open' },
        { at: 30_001, report: 'failure', probe: true, phase: 'open', cause: 'probe-failed' },
        { at: 59_999, sendProbe: true, phase: 'half-open' },
        {
          at: 60_000,
          report: 'failure',
          probe: true,
          phase: 'open',
          cause: 'probe-failed',
          disable: 'failing',
        },
      ],
    ],
    [
      'a success restarts the clock',
      [
        { at: 0, report: 'failure', phase: 'closed' },
        { at: 50_000, report: 'success', phase: 'closed' },
        { at: 60_000, report: 'failure', phase: 'closed' },
        { at: 109_999, report: 'failure', phase: 'closed' },
      ],
    ],
    [
      'another instance’s earlier first failure counts',
      [
        { at: 100, report: 'failure', phase: 'closed' },
        { at: 200, shared: { openedAtMs: 150, failingSinceMs: 0 }, phase: 'open' },
        { at: 1200, sendProbe: true, phase: 'half-open' },
        {
          at: 60_000,
          report: 'failure',
          probe: true,
          phase: 'open',
          cause: 'probe-failed',
          disable: 'failing',
        },
      ],
    ],
  ])('auto-disable: %s', (_name, steps) => {
    run(steps);
  });

  it('keeps the ratio window bounded: at most ten slices whatever the rate', () => {
    let now = 0;
    const p = new BreakerPolicy({
      settings: { ...settings, minAttempts: 1_000_000 },
      disableAfterMs: 1e9,
      now: () => now,
    });
    for (let i = 0; i < 5000; i++) {
      now = i * 7;
      p.report(i % 2 === 0 ? 'success' : 'failure', false);
    }
    expect(p.state.buckets.length).toBeLessThanOrEqual(11);
    expect(p.state.phase).toBe('closed');
  });
});
