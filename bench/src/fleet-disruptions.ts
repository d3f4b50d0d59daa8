import { subscriberGroupId } from '@hookstream/contracts';
import type { KafkaAdmin } from '@hookstream/kafka';
import type { FleetInstances, FleetShard } from './fleet-instances.ts';
import { waitUntilOwned } from './group-owners.ts';
import type { RunControl } from './run-control.ts';

/** What happens to the instances of one shard, one at a time, with recovery between. */
export const DISRUPTIONS = ['crash', 'join', 'stop', 'rejoin', 'rolling', 'scale'] as const;
export type DisruptionId = (typeof DISRUPTIONS)[number];

export const DISRUPTION_LABELS: Readonly<Record<DisruptionId, string>> = {
  crash: 'kill -9 of one instance',
  join: 'a new instance joins (replacing the killed one)',
  stop: 'a graceful stop of one instance (SIGTERM)',
  rejoin: 'a new instance joins',
  rolling: 'a rolling restart of all (a new one up, then an old one stopped, in turn)',
  scale: 'two instances added, then removed (KEDA-like)',
};

/** Planned: no instance dies without leaving its groups, so nothing may arrive twice. */
export const PLANNED: ReadonlySet<DisruptionId> = new Set(['join', 'stop', 'rejoin', 'rolling', 'scale']);

export interface DisruptionContext extends RunControl {
  readonly admin: KafkaAdmin;
  readonly instances: FleetInstances;
  /** The shard disrupted; every other shard's subscribers are the unmoved ones. */
  readonly shard: FleetShard;
  readonly sessionTimeoutMs: number;
  /** How long a stopped instance gets to commit and leave before SIGKILL. */
  readonly stopGraceMs: number;
}

/** One wait for ownership inside a disruption (a rolling restart has two per instance). */
export interface OwnershipStep {
  readonly what: string;
  readonly seconds: number | null;
}

/**
 * Carries out one disruption on `ctx.shard` and waits, after each change, until every group of
 * the shard is Stable with its live members again. Returns each wait.
 */
export async function disrupt(id: DisruptionId, ctx: DisruptionContext): Promise<OwnershipStep[]> {
  const { instances, shard } = ctx;
  const steps: OwnershipStep[] = [];
  const owned = async (what: string) => {
    const since = performance.now();
    const wait = await waitUntilOwned(ctx.admin, expectedMembers(instances, shard), {
      since,
      // A crash waits out the session timeout; anything else is done well within it.
      timeoutMs: ctx.sessionTimeoutMs + 120_000,
      failed: () => instances.failed(),
      progress: ctx.progress,
      signal: ctx.signal,
    });
    ctx.progress(
      wait.seconds === null
        ? `${what}: ${wait.pending} groups still not owned after the wait`
        : `${what}: every group owned again after ${wait.seconds} s`,
    );
    steps.push({ what, seconds: wait.seconds });
  };
  const first = () => {
    const [one] = instances.liveIn(shard);
    if (!one) throw new Error(`shard ${shard.index} has no instance left to ${id}`);
    return one;
  };
  switch (id) {
    case 'crash': {
      const victim = first();
      await instances.crash(victim);
      await owned(`killed ${victim.name}`);
      break;
    }
    case 'stop': {
      const victim = first();
      const stopping = instances.stop(victim, ctx.stopGraceMs);
      await owned(`stopped ${victim.name}`);
      ctx.progress(`${victim.name}: ${await stopping}`);
      break;
    }
    case 'join':
    case 'rejoin': {
      const added = await instances.start(shard);
      await owned(`${added.name} joined`);
      break;
    }
    case 'rolling': {
      for (const old of instances.liveIn(shard)) {
        const added = await instances.start(shard);
        await owned(`${added.name} joined`);
        const stopping = instances.stop(old, ctx.stopGraceMs);
        await owned(`stopped ${old.name}`);
        await stopping;
      }
      break;
    }
    case 'scale': {
      const added = [await instances.start(shard), await instances.start(shard)];
      await owned(`${added.map((a) => a.name).join(' and ')} joined`);
      const stopping = added.map((a) => instances.stop(a, ctx.stopGraceMs));
      await owned(`stopped ${added.map((a) => a.name).join(' and ')}`);
      await Promise.all(stopping);
      break;
    }
  }
  return steps;
}

/** Every group of the shard, with as many members as the shard has live instances. */
export function expectedMembers(instances: FleetInstances, shard: FleetShard): Map<string, number> {
  const members = instances.liveIn(shard).length;
  return new Map(shard.subscribers.map((s) => [subscriberGroupId(s.name), members]));
}
