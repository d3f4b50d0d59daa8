import { FleetChild } from './fleet-child.ts';
import type { BenchSubscriber } from './fleet-subscribers.ts';
import { type PodCgroup, podCgroup } from './pod-cgroup.ts';

/** One shard: the subscribers its `--match` pattern selects, run by every instance of the shard. */
export interface FleetShard {
  readonly index: number;
  /** The `--match` glob of its subscribers' names. */
  readonly match: string;
  readonly subscribers: readonly BenchSubscriber[];
}

/** One `hookstream push --all --match … --instance <name>` process. */
export interface FleetInstance {
  readonly name: string;
  readonly shard: FleetShard;
  readonly child: FleetChild;
  readonly cgroup: PodCgroup | null;
}

export interface FleetInstancesOptions {
  readonly hookstreamBin: string;
  /** Names every instance: `<prefix>-s<shard>-i<n>`. */
  readonly prefix: string;
  readonly topic: string;
  readonly env: NodeJS.ProcessEnv;
  readonly sessionTimeoutMs: number;
  /** Each instance in a memory cgroup of its own of this limit, as a pod; absent: none. */
  readonly podMemoryMiB?: number | undefined;
}

/**
 * The instances of a multi-instance run, each its own process as in a deployment: started,
 * stopped (SIGTERM, as Kubernetes stops a pod) and killed (-9) one at a time.
 */
export class FleetInstances {
  readonly #options: FleetInstancesOptions;
  readonly #live = new Map<string, FleetInstance>();
  readonly #ended: FleetInstance[] = [];
  #started = 0;

  constructor(options: FleetInstancesOptions) {
    this.#options = options;
  }

  get live(): readonly FleetInstance[] {
    return [...this.#live.values()];
  }

  liveIn(shard: FleetShard): FleetInstance[] {
    return this.live.filter((i) => i.shard.index === shard.index);
  }

  /** Every instance started so far, the ended ones too (their join counts still count). */
  get all(): readonly FleetInstance[] {
    return [...this.#ended, ...this.#live.values()];
  }

  async start(shard: FleetShard): Promise<FleetInstance> {
    const o = this.#options;
    const name = `${o.prefix}-s${shard.index}-i${++this.#started}`;
    const cgroup =
      o.podMemoryMiB === undefined ? null : await podCgroup(`hookstream-${name}`, o.podMemoryMiB);
    const args = [
      'push',
      '--all',
      '--match',
      shard.match,
      '--topic',
      o.topic,
      '--instance',
      name,
      '--session-timeout',
      String(o.sessionTimeoutMs),
    ];
    const instance = {
      name,
      shard,
      child: FleetChild.spawn(o.hookstreamBin, args, o.env, cgroup, name),
      cgroup,
    };
    this.#live.set(name, instance);
    return instance;
  }

  /** SIGTERM: it commits and leaves its groups; SIGKILL after `graceMs`. */
  async stop(instance: FleetInstance, graceMs: number): Promise<'stopped' | 'killed' | 'had ended'> {
    this.#ended.push(instance);
    this.#live.delete(instance.name);
    const how = await instance.child.stop(graceMs);
    await instance.cgroup?.remove();
    return how;
  }

  async crash(instance: FleetInstance): Promise<void> {
    this.#ended.push(instance);
    this.#live.delete(instance.name);
    await instance.child.crash();
    await instance.cgroup?.remove();
  }

  /** Why an instance that should run has ended, or null while all run. */
  failed(): string | null {
    for (const i of this.#live.values())
      if (i.child.ended !== null) return `${i.name} ended (${i.child.ended}): ${i.child.tail()}`;
    return null;
  }

  async stopAll(graceMs: number): Promise<void> {
    await Promise.all(this.live.map((i) => this.stop(i, graceMs)));
  }
}
