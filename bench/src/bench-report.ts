import { cpus, totalmem } from 'node:os';
import type { BenchReport, BenchScale, Figure, SectionOutcome } from './report-schema.ts';
import type { BenchContext, RunnableSection } from './report-section.ts';

export type { BenchReport } from './report-schema.ts';

export const FULL_SCALE: BenchScale = {
  ingressEvents: 20_000,
  pushEvents: 20_000,
  pushRounds: 3,
  // As long as the push rounds' drains: a 5,000-event drain's tracing figure swung between runs
  // by more than the target's margin (cost-2026-12-07.md).
  tracingEvents: 20_000,
  tracingRounds: 4,
  httpsEvents: 5000,
  warmUpDrains: 1,
  e2eEvents: 20_000,
  halfLoadSeconds: 10,
  perfRecords: 200_000,
  limiterRate: 100,
  limiterEvents: 1500,
  retryRecords: 1000,
  retryTiersMs: [1000, 10_000],
  runDeadlineMs: 20_000,
  apiSubscribers: 1000,
  apiRequests: 300,
  apiWrites: 100,
  batchEvents: 10_000,
  batchRounds: 3,
  batchDelaysMs: [20, 0],
  pullEvents: 200_000,
  reconcileEvents: 1_000_000,
  fleetIdleSeconds: 60,
  fleetLoadSeconds: 30,
};

/** Seconds, not minutes: every section on a tiny load (figures mean nothing). */
export const QUICK_SCALE: BenchScale = {
  ingressEvents: 200,
  pushEvents: 200,
  pushRounds: 1,
  tracingEvents: 100,
  tracingRounds: 1,
  httpsEvents: 100,
  warmUpDrains: 1,
  e2eEvents: 300,
  halfLoadSeconds: 1,
  perfRecords: 2000,
  limiterRate: 20,
  limiterEvents: 40,
  retryRecords: 20,
  retryTiersMs: [300, 600],
  runDeadlineMs: 5000,
  apiSubscribers: 20,
  apiRequests: 5,
  apiWrites: 3,
  batchEvents: 300,
  batchRounds: 1,
  batchDelaysMs: [20],
  pullEvents: 1000,
  reconcileEvents: 10_000,
  fleetIdleSeconds: 5,
  fleetLoadSeconds: 5,
};

/**
 * Smaller still than --quick: the least that runs every part of every section (each drain, each
 * phase), for the smoke test that checks the report's shape within a minute on two cores.
 */
export const SMOKE_SCALE: BenchScale = {
  ...QUICK_SCALE,
  ingressEvents: 50,
  pushEvents: 50,
  tracingEvents: 20,
  httpsEvents: 20,
  // Each drain is a new group joining: the warm-ups would double the push and batch sections.
  warmUpDrains: 0,
  e2eEvents: 50,
  perfRecords: 200,
  limiterRate: 20,
  limiterEvents: 10,
  retryRecords: 5,
  retryTiersMs: [100, 200],
  runDeadlineMs: 2000,
  apiSubscribers: 3,
  apiRequests: 2,
  apiWrites: 1,
  batchEvents: 50,
  pullEvents: 100,
  fleetIdleSeconds: 1,
  fleetLoadSeconds: 1,
};

export type BenchSize = 'full' | 'quick' | 'smoke';

/** `events` per run for the ingress, push and end-to-end loads; the rest keeps its proportions. */
export function scaleFor(size: BenchSize, events?: number): BenchScale {
  const base = size === 'smoke' ? SMOKE_SCALE : size === 'quick' ? QUICK_SCALE : FULL_SCALE;
  if (events === undefined) return base;
  return {
    ...base,
    ingressEvents: events,
    pushEvents: events,
    tracingEvents: events,
    httpsEvents: Math.max(20, Math.round(events / 4)),
    e2eEvents: events,
    perfRecords: events * 10,
  };
}

/** Runs the sections in order; each sees the figures of those before it (its baselines). */
export async function runBenchReport(
  sections: readonly RunnableSection[],
  ctx: Omit<BenchContext, 'figure'>,
): Promise<BenchReport> {
  const startedAt = new Date();
  const started = performance.now();
  const figures = new Map<string, Figure>();
  const context: BenchContext = { ...ctx, figure: (id) => figures.get(id) };
  const outcomes: SectionOutcome[] = [];
  for (const section of sections) {
    ctx.progress(`— ${section.title}`);
    const outcome = await section.execute(context);
    if (outcome.error) ctx.progress(`${section.title} failed: ${outcome.error}`);
    for (const f of outcome.figures) figures.set(f.id, f);
    outcomes.push(outcome);
  }
  const cpu = cpus();
  return {
    startedAt: startedAt.toISOString(),
    seconds: Math.round(performance.now() - started) / 1000,
    machine: {
      cpus: cpu.length,
      cpuModel: cpu[0]?.model.trim() ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
    },
    scale: ctx.scale,
    sections: outcomes,
  };
}
