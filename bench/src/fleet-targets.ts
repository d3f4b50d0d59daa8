import type { LoadFigures } from './fleet-load.ts';
import type { JoinWait } from './group-joins.ts';
import type { TargetCheck } from './report-section.ts';

/** Issue 11's targets for a fleet of many subscribers in one process. */
export const FLEET_TARGETS = {
  rssBaseMiB: 150,
  rssPerSubscriberMiB: 1,
  joinSeconds: 120,
  idleCpuPercent: 20,
  p99Ms: 500,
  /** Largest change of the healthy subscribers' delivered rate once some endpoints are dead. */
  healthyRateChange: 0.05,
} as const;

/** What the targets are checked against. */
export interface FleetFigures {
  readonly subscribers: number;
  readonly join: JoinWait;
  readonly memory: { readonly rssMiB: number };
  readonly idle: { readonly fleetCpuPercent: number };
  readonly load: LoadFigures;
  readonly dead: LoadFigures | null;
  /** Subscribers whose endpoint died before the second load. */
  readonly deadEndpoints: number;
  /** dead.healthy.perSecond / load.healthy.perSecond; null without a dead phase. */
  readonly healthyRateRatio: number | null;
}

export function fleetTargets(f: FleetFigures): TargetCheck[] {
  const t = FLEET_TARGETS;
  const rssLimit = t.rssBaseMiB + t.rssPerSubscriberMiB * f.subscribers;
  const { latency } = f.load.all;
  const checks: TargetCheck[] = [
    {
      target: `RSS ≤ ${rssLimit} MiB (${t.rssBaseMiB} + ${t.rssPerSubscriberMiB} per subscriber) once all joined`,
      measured: `${f.memory.rssMiB} MiB`,
      met: f.memory.rssMiB <= rssLimit,
    },
    {
      target: `all ${f.subscribers} groups joined within ${t.joinSeconds} s`,
      measured:
        f.join.seconds === null
          ? `${f.join.joined}/${f.join.groups} joined, then gave up`
          : `${f.join.seconds} s`,
      met: f.join.seconds !== null && f.join.seconds <= t.joinSeconds,
    },
    {
      target: `idle fleet CPU ≤ ${t.idleCpuPercent} % of one core`,
      measured: `${f.idle.fleetCpuPercent} %`,
      met: f.idle.fleetCpuPercent <= t.idleCpuPercent,
    },
    {
      target: `e2e p99 ≤ ${t.p99Ms} ms at ${f.load.targetPerSecond} deliveries/s`,
      measured: `p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms (${f.load.all.delivered}/${f.load.published} delivered)`,
      met: latency.count > 0 && latency.p99Ms <= t.p99Ms && f.load.all.delivered === f.load.published,
    },
  ];
  if (f.dead !== null && f.healthyRateRatio !== null)
    checks.push({
      target: `healthy delivered rate changes < ${t.healthyRateChange * 100} % with ${f.deadEndpoints} of ${f.dead.subscribers} endpoints dead`,
      measured: `${f.load.healthy.perSecond}/s → ${f.dead.healthy.perSecond}/s (×${f.healthyRateRatio})`,
      met: Math.abs(f.healthyRateRatio - 1) < t.healthyRateChange,
    });
  return checks;
}
