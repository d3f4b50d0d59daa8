import { PLANNED } from './fleet-disruptions.ts';
import type { DisruptionResult, InstancesBenchResult } from './fleet-instances-bench.ts';
import type { TargetCheck } from './report-section.ts';

/** Issue 43's targets for several fleet instances through crashes, stops, joins and rebalances. */
export const INSTANCES_TARGETS = {
  /** Subscribers whose groups did not rebalance. */
  unmovedP99Ms: 1000,
  /** The rejoin barrier's bound (pusher-core's HANDOVER_MAX_MS) + 1 s: the most a moved event waits. */
  movedMaxMs: 11_000,
  /** A crash: every partition owned again within the session timeout + this. */
  crashOwnedExtraMs: 5000,
  joinSeconds: 90,
  /** The chart's pusher pod limit. */
  podMemoryMiB: 768,
} as const;

export function instancesTargets(r: InstancesBenchResult): TargetCheck[] {
  const t = INSTANCES_TARGETS;
  const disrupted = r.windows.filter((w) => w.id !== 'steady');
  const checks: TargetCheck[] = [
    {
      target: 'no event lost, whatever happened',
      measured: `${r.lost} lost of ${r.load.published}`,
      met: r.lost === 0,
    },
    {
      target: `all ${r.subscribers} groups owned by every instance of their shard within ${t.joinSeconds} s`,
      measured: r.joinSeconds === null ? 'not within the join timeout' : `${r.joinSeconds} s`,
      met: r.joinSeconds !== null && r.joinSeconds <= t.joinSeconds,
    },
  ];
  for (const w of disrupted) {
    const f = w.figures;
    if (w.id !== 'steady' && PLANNED.has(w.id))
      checks.push({
        target: `${w.id}: no duplicate (a planned change)`,
        measured: `${f.duplicates} duplicates`,
        met: f.duplicates === 0,
      });
    if (w.id === 'crash') {
      const ownedMs = (w.steps[0]?.seconds ?? Number.POSITIVE_INFINITY) * 1000;
      const bound = r.sessionTimeoutMs + t.crashOwnedExtraMs;
      checks.push(
        {
          target: `crash: every partition owned again within the session timeout + 5 s (${bound / 1000} s)`,
          measured: w.steps[0]?.seconds == null ? 'not owned within the wait' : `${w.steps[0].seconds} s`,
          met: ownedMs <= bound,
        },
        {
          target: `crash: duplicates at most the killed instance's uncommitted window (${w.crashWindowEvents ?? 0} events)`,
          measured: `${f.duplicates} duplicates`,
          met: f.duplicates <= (w.crashWindowEvents ?? 0),
        },
      );
    } else
      checks.push({
        target: `${w.id}: moved subscribers' events wait at most the hand-over bound + 1 s (${t.movedMaxMs / 1000} s)`,
        measured: moved(w),
        met: w.figures.moved.latency.count > 0 && w.figures.moved.latency.maxMs <= t.movedMaxMs,
      });
    if (f.unmoved !== null)
      checks.push({
        target: `${w.id}: unmoved subscribers keep p99 ≤ ${t.unmovedP99Ms} ms`,
        measured: `p99 ${f.unmoved.latency.p99Ms} ms (${f.unmoved.delivered}/${f.unmoved.published})`,
        met: f.unmoved.latency.count > 0 && f.unmoved.latency.p99Ms <= t.unmovedP99Ms,
      });
  }
  const peak = Math.max(r.joinedInstances.peakMaxMiB, ...r.windows.map((w) => w.instances.peakMaxMiB));
  checks.push({
    target: `no instance above the chart's pod memory limit (${t.podMemoryMiB} MiB)`,
    measured: `peak ${peak} MiB (VmHWM)`,
    met: peak <= t.podMemoryMiB,
  });
  return checks;
}

function moved(w: DisruptionResult): string {
  const l = w.figures.moved.latency;
  return `max ${l.maxMs} ms, p99 ${l.p99Ms} ms`;
}
